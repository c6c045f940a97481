// pi 0.73 `pi --session <path|id>`: the session file itself, which names it
// exactly (an id is matched as a partial UUID), started in its cwd.

import type { ResumeCommand } from '../../engine/core/shell-quote.js';

export function piResume(s: { cwd: string | null; paths: readonly string[] }): ResumeCommand | null {
  const file = s.paths[0];
  return file ? { cwd: s.cwd, command: ['pi', '--session'], target: file } : null;
}
