// What many tests name: the repository, the built CLI they drive, and the
// passphrase their backups are made with. One place, so a move of dist/ or a
// new passphrase rule is one edit.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built binary (npm run build; the vitest global setup builds it when it is missing or stale). */
export const CLI = join(ROOT, 'dist', 'cli.js');
/** The backup passphrase the tests type and pipe (long enough for the passphrase rule). */
export const TEST_PASSPHRASE = 'correct horse battery staple';
