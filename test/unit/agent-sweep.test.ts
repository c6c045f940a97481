// The agent's own sweep, read only: Claude's cleanupPeriodDays from
// settings.json (default 30; only that key; never written), Codex's log
// retention and OpenCode's snapshot collection reach the detail pane as
// "<agent> deletes this … on DATE". Hostile settings files give a warning
// and an "unknown", never a crash, a hang or a change.

import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSweep } from '../../src/adapters/claude/sweep.js';
import { CODEX_SWEEP } from '../../src/adapters/codex/sweep.js';
import { LOGS_ITEM } from '../../src/adapters/codex/items.js';
import { OPENCODE_SWEEP } from '../../src/adapters/opencode/sweep.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { sessionSweepText } from '../../src/engine/inventory/agent-sweep.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { Detail, Item } from '../../src/engine/core/model.js';
import { DAY, inventory, NOW, session, snapshotOf } from '../helpers/sessions.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

const sweepLine = (d: Detail): string | undefined => d.sections.find((s) => s.heading === "Agent's own cleanup")?.fields[0]?.value;

function claudeHome(settings?: string | Buffer): { t: TempEnv; home: string; transcript: string } {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  const proj = join(home, 'projects', '-work-app');
  mkdirSync(proj, { recursive: true });
  const id = randomUUID();
  const transcript = join(proj, `${id}.jsonl`);
  writeFileSync(transcript, JSON.stringify({ type: 'user', sessionId: id, cwd: '/work/app', message: { role: 'user', content: 'hi' } }) + '\n');
  if (settings !== undefined) writeFileSync(join(home, 'settings.json'), settings);
  return { t, home, transcript };
}

describe("Claude's cleanupPeriodDays", () => {
  it('no settings.json: the default 30 days', async () => {
    const { home } = claudeHome();
    const s = await claudeSweep(home);
    expect(s.sessionDays).toBe(30);
    expect(s.sessionRule).toMatch(/30, the default/);
    expect(s.warning).toBeUndefined();
  });

  it('takes only cleanupPeriodDays from settings.json and never changes the file', async () => {
    const secret = 'sk-ant-SECRET-never-kept';
    const text = JSON.stringify({ env: { ANTHROPIC_API_KEY: secret }, apiKeyHelper: secret, cleanupPeriodDays: 7, model: 'x' }, null, 2);
    const { home } = claudeHome(text);
    const p = join(home, 'settings.json');
    const before = statSync(p);
    const s = await claudeSweep(home);
    expect(s.sessionDays).toBe(7);
    expect(JSON.stringify(s)).not.toContain(secret);
    expect(JSON.stringify(s)).not.toContain('model');
    expect(readFileSync(p, 'utf8')).toBe(text);
    expect(statSync(p).mtimeMs).toBe(before.mtimeMs);
    expect(statSync(p).mode).toBe(before.mode);
  });

  it('0 and values that are not a whole number of at least 1 drop the file, as Claude Code 2.1.333 does: the default applies', async () => {
    // claude-sweep-forecast.test.ts asks the pinned SDK's resolveSettings for the same rule.
    for (const bad of ['0', '"30"', '-1', '1.5', 'null', '"\\u001b[31mred"']) {
      t?.cleanup();
      const s = await claudeSweep(claudeHome(`{"cleanupPeriodDays":${bad}}`).home);
      expect(s.sessionDays).toBe(30);
      expect(s.written).toMatch(/which Claude rejects/);
      expect(`${s.sessionRule} ${s.written}`).not.toMatch(/\u001b/);
    }
    t?.cleanup();
    // Not an object at all: the key is absent, the default holds.
    expect((await claudeSweep(claudeHome('[1,2]').home)).sessionDays).toBe(30);
  });

  it('corrupt, huge, FIFO and linked settings.json: a warning, unknown, nothing followed or changed', async () => {
    // Not JSON: Claude ignores the whole file, so the default applies; the user hears why.
    const corrupt = await claudeSweep(claudeHome('{"cleanupPeriodDays": 3').home);
    expect(corrupt.sessionDays).toBe(30);
    expect(corrupt.warning).toMatch(/not valid JSON/);
    t?.cleanup();

    const big = claudeHome(Buffer.alloc(1024 * 1024 + 1, 0x20));
    const huge = await claudeSweep(big.home);
    expect(huge.warning).toMatch(/larger than/);
    t?.cleanup();

    const f = claudeHome();
    expect(spawnSync('mkfifo', [join(f.home, 'settings.json')]).status).toBe(0);
    const fifo = await claudeSweep(f.home);
    expect(fifo.warning).toMatch(/FIFO/);
    expect(lstatSync(join(f.home, 'settings.json')).isFIFO()).toBe(true);
    t?.cleanup();

    const l = claudeHome();
    const target = join(l.t.root, 'dotfiles-settings.json');
    writeFileSync(target, '{"cleanupPeriodDays": 3}');
    symlinkSync(target, join(l.home, 'settings.json'));
    const link = await claudeSweep(l.home);
    expect(link.sessionDays).toBe('unknown');
    expect(link.warning).toMatch(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('{"cleanupPeriodDays": 3}');
  });

  it('the detail pane of a real scan says when Claude deletes the transcript', async () => {
    const { t: env, transcript } = claudeHome('{"cleanupPeriodDays": 14}');
    const mtime = Date.UTC(2026, 10, 20, 9, 30, 0);
    utimesSync(transcript, mtime / 1000, mtime / 1000);
    const engine = new Engine(ADAPTERS, { ...env.ctx, now: () => Date.UTC(2026, 10, 25) });
    const sum = await engine.scan('claude');
    const id = sum.selection[0]!.id;
    expect(sweepLine(await engine.detail(sum.snapshotId, id))).toBe(
      'Claude deletes this transcript on 2026-12-04 09:30 UTC, at its first start from then on, unless it changes (cleanupPeriodDays 14 in settings.json).',
    );
    await engine.close();
  });

  it('a hostile settings.json is a scan warning, and the scan completes', async () => {
    const { t: env } = claudeHome('{"cleanupPeriodDays": ');
    const engine = new Engine(ADAPTERS, env.ctx);
    const sum = await engine.scan('claude');
    expect(sum.sessionCount).toBe(1);
    expect(sum.warnings.some((w) => w.path.endsWith('settings.json') && /not valid JSON: Claude ignores all of its settings/.test(w.reason))).toBe(true);
    expect(sweepLine(await engine.detail(sum.snapshotId, sum.selection[0]!.id))).toMatch(/cleanupPeriodDays 30, the default/);
    await engine.close();
  });
});

describe('the wording', () => {
  const claude = { agentName: 'Claude', sessionDays: 30, sessionRule: 'cleanupPeriodDays 30, the default', itemRules: [] as { id: string; text: string }[] };
  it('past due: at the next start; no time: nothing; off: kept', () => {
    expect(sessionSweepText({ ...claude }, NOW - 40 * DAY, NOW)).toMatch(/^Claude deletes this transcript at its next start: it is older than 30 days/);
    expect(sessionSweepText({ ...claude }, null, NOW)).toBeNull();
    expect(sessionSweepText({ ...claude, sessionDays: 'never', sessionRule: 'cleanupPeriodDays is 0 in settings.json' }, NOW, NOW)).toMatch(
      /does not delete this transcript by itself/,
    );
    expect(sessionSweepText({ ...CODEX_SWEEP }, NOW, NOW)).toBeNull();
  });

  it("Claude desktop-app sessions are not given cleanupPeriodDays' date", async () => {
    const s = await claudeSweep(claudeHome().home);
    expect(sessionSweepText(s, NOW - 40 * DAY, NOW, 'claude-desktop')).toMatch(/does not apply to desktop-app sessions/);
    expect(sessionSweepText(s, NOW - 40 * DAY, NOW, 'cli')).toMatch(/at its next start/);
  });
});

describe('Codex and OpenCode', () => {
  const item = (id: string, category: Item['category']): Item =>
    ({ id, category, label: id, bytes: 1, paths: [], risk: 'safe', recoverable: false, selectable: false }) as unknown as Item;

  it("Codex's log item says Codex prunes rows older than about 10 days; its sessions say nothing", () => {
    const inv = inventory([session('a')], [], [item(LOGS_ITEM, 'log')]);
    inv.sweep = CODEX_SWEEP;
    const snap = snapshotOf(inv);
    expect(sweepLine(snap.detail(LOGS_ITEM))).toMatch(/^Codex deletes its own log rows older than about 10 days when it starts/);
    expect(sweepLine(snap.detail('session:a'))).toBeUndefined();
  });

  it("OpenCode's snapshot and tool-output dirs say OpenCode collects them itself", () => {
    const inv = inventory(
      [],
      [],
      [
        item('protected:opencode:snapshot', 'protected'),
        item('snapshot:opencode:p1/0a1b', 'cache'),
        item('protected:opencode:tool-output', 'protected'),
        item('logs:opencode', 'log'),
      ],
    );
    inv.sweep = OPENCODE_SWEEP;
    const snap = snapshotOf(inv);
    expect(sweepLine(snap.detail('protected:opencode:snapshot'))).toMatch(/git gc --prune=7\.days/);
    expect(sweepLine(snap.detail('snapshot:opencode:p1/0a1b'))).toMatch(/git gc --prune=7\.days/);
    expect(sweepLine(snap.detail('protected:opencode:tool-output'))).toMatch(/older than 7 days/);
    expect(sweepLine(snap.detail('logs:opencode'))).toBeUndefined();
  });
});
