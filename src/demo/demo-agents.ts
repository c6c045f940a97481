// Each agent's part of `--demo`: the data its throw-away home is filled with
// and the pinned package whose program the demo runs. The adapters never
// import the demo (the fixture builders are test and demo code, not product
// code), so this table, not the adapter descriptor, holds the demo data of
// these agents; the demo home walks the registry, and an agent without an
// entry here (a new one, the stub agent of test/unit/stub-agent.test.ts) gets
// its isolated home without demo data.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentKind } from '../engine/core/model.js';
import { buildClaudeFixture } from './fixtures/claude.js';
import { buildClaudeTemp } from './fixtures/claude-temp.js';
import { buildCodexFixture } from './fixtures/codex.js';
import { buildPiFixture } from './fixtures/pi.js';

interface DemoAgent {
  /** Writes the agent's demo data into the home that `env` (the isolated env) points at. */
  build(env: Readonly<Record<string, string>>, now: number): void;
  /** The package pinned in cleanerx's package.json whose program the demo runs, when there is one. */
  pinned?: { pkg: string; bin: string };
}

export const DEMO_AGENTS: Readonly<Partial<Record<AgentKind, DemoAgent>>> = {
  codex: {
    build(env, now) {
      mkdirSync(env.CODEX_HOME!, { recursive: true });
      // Codex's own App Server indexes these rollouts on the first scan (no database is written here).
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
    },
    pinned: { pkg: '@openai/codex', bin: 'codex' },
  },
  claude: {
    build(env, now) {
      const m = buildClaudeFixture({
        configDir: env.CLAUDE_CONFIG_DIR!,
        projects: 10,
        sessionsPerProject: 8,
        seed: 11,
        now,
        cwdRoot: join(env.HOME!, 'code'),
        hostile: true,
      });
      // Where Claude would put it in this home (the isolated env names CLAUDE_CODE_TMPDIR inside it).
      buildClaudeTemp({ tmpDir: env.CLAUDE_CODE_TMPDIR ?? env.TMPDIR!, uid: process.getuid?.() ?? -1, sessions: m.sessions, now });
    },
  },
  opencode: {
    // The minimal store; the real database is built beside it by opencode-demo.ts when the pinned binary is installed.
    build(env) {
      const dir = join(env.XDG_DATA_HOME!, 'opencode');
      mkdirSync(join(dir, 'log'), { recursive: true });
      mkdirSync(join(dir, 'storage'), { recursive: true });
      writeFileSync(join(dir, 'log', '2026-11-20T100000.log'), 'INFO service=server started\n');
      writeFileSync(join(dir, 'auth.json'), '{}\n', { mode: 0o600 });
    },
  },
  pi: {
    build(env, now) {
      buildPiFixture({
        agentDir: env.PI_CODING_AGENT_DIR!,
        projects: 24,
        sessionsPerProject: 14,
        seed: 7,
        now,
        cwdRoot: join(env.HOME!, 'src'),
        forkRate: 0.2,
        hostile: true,
        config: true,
        bodyBytes: 6000,
      });
    },
    pinned: { pkg: '@mariozechner/pi-coding-agent', bin: 'pi' },
  },
};
