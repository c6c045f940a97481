// What the helper children (restore-child, settle-child) import: the built
// modules when dist/ is current — the suite's global setup builds it — and
// the sources through jiti otherwise (a mutation sandbox has no dist/, and its
// mutated sources are what it tests). jiti compiles every module again at
// each start, about a second of CPU, and the crash tests start dozens.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isStale } from '../../scripts/build-stamp.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fromDist = !isStale(root);
let jiti;

/** `rel` is a module path under src/ without its extension, e.g. `backup/restore`. */
export async function load(rel) {
  if (fromDist) return import(pathToFileURL(join(root, 'dist', `${rel}.js`)).href);
  jiti ??= (await import('jiti')).createJiti(import.meta.url);
  return jiti.import(join(root, 'src', `${rel}.ts`));
}
