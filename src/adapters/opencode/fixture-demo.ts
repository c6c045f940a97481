// OpenCode's part of `--demo`: the minimal store. The real database is built
// beside it by src/demo/opencode-demo.ts when the pinned binary is installed
// (a database needs OpenCode's own schema).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function buildOpencodeDemo(env: Readonly<Record<string, string>>): void {
  const dir = join(env.XDG_DATA_HOME!, 'opencode');
  mkdirSync(join(dir, 'log'), { recursive: true });
  mkdirSync(join(dir, 'storage'), { recursive: true });
  writeFileSync(join(dir, 'log', '2026-11-20T100000.log'), 'INFO service=server started\n');
  writeFileSync(join(dir, 'auth.json'), '{}\n', { mode: 0o600 });
}
