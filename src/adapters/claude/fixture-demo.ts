// Claude Code's part of `--demo`: its config dir, and its temp root where Claude would put it in this home.

import { join } from 'node:path';
import { buildClaudeFixture } from './fixture.js';
import { buildClaudeTemp } from './fixture-temp.js';

export function buildClaudeDemo(env: Readonly<Record<string, string>>, now: number): void {
  const m = buildClaudeFixture({
    configDir: env.CLAUDE_CONFIG_DIR!,
    projects: 10,
    sessionsPerProject: 8,
    seed: 11,
    now,
    cwdRoot: join(env.HOME!, 'code'),
    hostile: true,
  });
  // The isolated env names CLAUDE_CODE_TMPDIR inside the home.
  buildClaudeTemp({ tmpDir: env.CLAUDE_CODE_TMPDIR ?? env.TMPDIR!, uid: process.getuid?.() ?? -1, sessions: m.sessions, now });
}
