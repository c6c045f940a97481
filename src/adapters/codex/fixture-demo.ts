// Codex's part of `--demo`: the rollouts its own App Server indexes on the first scan (no database is written here).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildCodexFixture } from './fixture.js';

export function buildCodexDemo(env: Readonly<Record<string, string>>, now: number): void {
  mkdirSync(env.CODEX_HOME!, { recursive: true });
  buildCodexFixture({
    codexHome: env.CODEX_HOME!,
    workRoot: join(env.HOME!, 'work'),
    userHome: env.HOME!,
    threads: 60,
    seed: 13,
    now,
    memories: true,
    subagentRate: 0.4,
  });
}
