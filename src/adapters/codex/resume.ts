// `codex resume <id>` (Codex 0.171: SESSION_ID is the thread's UUID), run in
// the thread's cwd: Codex's picker and its config are per directory.

import type { ResumeCommand } from '../../engine/core/shell-quote.js';

export const codexResume = (s: { id: string; cwd: string | null }): ResumeCommand => ({ cwd: s.cwd, command: ['codex', 'resume'], target: s.id });
