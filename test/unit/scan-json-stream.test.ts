// `scan --json` is streamed (src/engine/api/scan-report.ts scanReportPieces,
// written piece by piece through terminal-out): the bytes must be exactly the
// whole-report text it replaced, safeJson(scanReport(scans)) — on the demo
// home (every agent) and on hostile pi and Claude fixtures large enough to
// span several pieces — and the real binary must print that text plus one newline.

import { agentKinds } from '../../src/engine/core/agents.js';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEngine } from '../../src/cli/engine-factory.js';
import { createDemoHome } from '../../src/demo/demo-home.js';
import { findDemoTools } from '../../src/demo/demo-tools.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { scanAgents, scanReport, scanReportPieces } from '../../src/engine/api/scan-report.js';
import type { AgentKind } from '../../src/engine/core/model.js';
import { safeJson, safeJsonText } from '../../src/engine/core/text.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

/** One scan, then the old whole-report text and the streamed pieces from it (an agent may change its home between two scans). */
async function bothTexts(env: Record<string, string>, agents: AgentKind[]): Promise<{ whole: string; pieces: string[] }> {
  const scans = await scanAgents(cliEngine(env, { readOnly: true }), agents);
  return { whole: safeJson(scanReport(scans)), pieces: [...scanReportPieces(scans)].map(safeJsonText) };
}

describe('the streamed scan --json is byte-identical to the whole report', () => {
  let t: TempEnv;
  beforeAll(() => {
    t = makeTempEnv();
    // Hostile titles and paths (escape sequences, bidi, invalid UTF-8) and 3 × 240 sessions: several 512-row pieces.
    buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 3,
      sessionsPerProject: 240,
      forkRate: 0.3,
      hostile: true,
      config: true,
      now: NOW,
      cwdRoot: join(t.root, 'src'),
    });
    buildClaudeFixture({
      configDir: t.env.CLAUDE_CONFIG_DIR!,
      projects: 3,
      sessionsPerProject: 200,
      sidecars: true,
      memory: true,
      config: true,
      hostile: true,
      now: NOW,
      cwdRoot: join(t.root, 'src'),
    });
  });
  afterAll(() => t.cleanup());

  it('pi and Claude fixtures, each agent alone and all agents together', { timeout: 240_000 }, async () => {
    for (const agents of [['pi'], ['claude'], agentKinds()] as AgentKind[][]) {
      const { whole, pieces } = await bothTexts(t.env, agents);
      if (agents.length === 1) expect(pieces.length, `${agents}: the rows span several pieces`).toBeGreaterThan(6);
      expect(pieces.join(''), agents.join(',')).toBe(whole);
      expect(
        JSON.parse(whole)
          .agents.map((a: { sessions: unknown[] }) => a.sessions.length)
          .some((n: number) => n > 512),
      ).toBe(true);
    }
  });

  it('the demo home, every agent', { timeout: 240_000 }, async () => {
    const home = await createDemoHome(NOW, undefined, t.root);
    const env = { ...t.env, ...home.env, PATH: [...findDemoTools().dirs, '/usr/bin:/bin'].join(':') };
    const { whole, pieces } = await bothTexts(env, agentKinds());
    expect(JSON.parse(whole).agents).toHaveLength(agentKinds().length);
    expect(pieces.join('')).toBe(whole);
  });

  it('the real binary prints the whole report and one newline', { timeout: 240_000 }, async () => {
    // Read-only on both sides (a writable scan marks some sessions unselectable differently); the fixture holds still.
    const { whole } = await bothTexts(t.env, ['pi']);
    const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'pi', '--json', '--read-only'], { env: t.env, encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${whole}\n`);
  });
});
