// Growth since the last scan: the history is bounded (count, one per hour,
// file size), hostile history files are ignored with a warning and never
// opened as anything but a regular file, and the figures add up — through
// the real engine and the Claude adapter on a temp home.

import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { CategoryTotal } from '../../src/engine/core/model.js';
import {
  addEntry,
  HISTORY_FILE,
  MAX_ENTRIES,
  MAX_HISTORY_BYTES,
  parseHistory,
  recordScan,
  SLOT_MS,
  type HistoryEntry,
} from '../../src/engine/inventory/scan-history.js';
import { sparkline } from '../../src/widgets/sparkline.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const HOUR = SLOT_MS;
const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);
let t: TempEnv | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

const totals = (sessionBytes: number, sessions = 1): Record<string, CategoryTotal> => ({
  session: { bytes: sessionBytes, items: sessions },
  cache: { bytes: 50, items: 1 },
});
const entry = (at: number, bytes = 100): HistoryEntry => ({ at, byCategory: totals(bytes) });

describe('scan history bounds', () => {
  it('keeps at most MAX_ENTRIES, the first and the newest scan always among them', () => {
    let h: HistoryEntry[] = [];
    for (let i = 0; i < 200; i++) h = addEntry(h, entry(T0 + i * HOUR * 3, i));
    expect(h.length).toBe(MAX_ENTRIES);
    expect(h[0]!.at).toBe(T0);
    expect(h[h.length - 1]!.at).toBe(T0 + 199 * HOUR * 3);
    for (let i = 1; i < h.length; i++) expect(h[i]!.at).toBeGreaterThan(h[i - 1]!.at);
  });

  it('keeps one entry per hour: a scan within the hour replaces the newest', () => {
    let h = addEntry([], entry(T0, 1));
    h = addEntry(h, entry(T0 + 10 * 60_000, 2));
    h = addEntry(h, entry(T0 + 50 * 60_000, 3));
    expect(h).toEqual([entry(T0 + 50 * 60_000, 3)]);
    h = addEntry(h, entry(T0 + 50 * 60_000 + HOUR, 4));
    expect(h.length).toBe(2);
  });

  it('a stored file of 1000 entries is read back thinned to MAX_ENTRIES', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => entry(T0 + i * HOUR));
    const h = parseHistory(JSON.stringify({ version: 1, agents: { claude: [{ home: '/h', entries }] } }));
    expect(h!.agents.claude![0]!.entries.length).toBe(MAX_ENTRIES);
  });
});

describe('growth figures', () => {
  it('first scan: no baseline; later: the change per category since the previous scan', async () => {
    t = makeTempEnv();
    const state = t.env.CLEANERX_STATE_DIR!;
    const first = await recordScan(state, 'claude', '/h', T0, totals(1000));
    expect(first.since).toBeNull();
    expect(first.warning).toBeUndefined();
    const second = await recordScan(state, 'claude', '/h', T0 + 2 * HOUR, totals(4500, 3));
    expect(second.since).toBe(T0);
    expect(second.byCategory.session).toEqual({ bytes: 3500, items: 2 });
    expect(second.byCategory.cache).toEqual({ bytes: 0, items: 0 });
    expect(second.totalBytes).toBe(3500);
    expect(second.trend.map((x) => x.bytes)).toEqual([1050, 4550]);
    // A rescan five minutes later still compares with the scan two hours before, and a shrink is negative.
    const third = await recordScan(state, 'claude', '/h', T0 + 2 * HOUR + 5 * 60_000, totals(500, 1));
    expect(third.since).toBe(T0);
    expect(third.byCategory.session).toEqual({ bytes: -500, items: 0 });
    expect(third.trend.length).toBe(2);
    // Another agent home (an override) has its own history.
    expect((await recordScan(state, 'claude', '/other', T0 + 3 * HOUR, totals(1))).since).toBeNull();
    // Read-only mode reads but never writes.
    const before = readFileSync(join(state, HISTORY_FILE), 'utf8');
    const ro = await recordScan(state, 'claude', '/h', T0 + 9 * HOUR, totals(9000), false);
    expect(ro.since).toBe(T0 + 2 * HOUR + 5 * 60_000);
    expect(readFileSync(join(state, HISTORY_FILE), 'utf8')).toBe(before);
    expect(lstatSync(join(state, HISTORY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('the engine reports growth of a real Claude store between two scans', async () => {
    t = makeTempEnv();
    const proj = join(t.env.CLAUDE_CONFIG_DIR!, 'projects', '-work-app');
    mkdirSync(proj, { recursive: true });
    const line = (s: string) =>
      JSON.stringify({ type: 'user', sessionId: s, cwd: '/work/app', timestamp: new Date(T0).toISOString(), message: { role: 'user', content: 'hello' } }) +
      '\n';
    const a = randomUUID();
    writeFileSync(join(proj, `${a}.jsonl`), line(a));
    let now = T0;
    const engine = new Engine(ADAPTERS, { ...t.ctx, now: () => now });
    const s1 = await engine.scan('claude');
    expect(s1.growth?.since).toBeNull();
    const b = randomUUID();
    writeFileSync(join(proj, `${b}.jsonl`), line(b).repeat(20));
    now += 3 * HOUR;
    const s2 = await engine.scan('claude');
    expect(s2.growth?.since).toBe(s1.scannedAt);
    expect(s2.growth?.byCategory.session?.items).toBe(1);
    expect(s2.growth?.byCategory.session?.bytes).toBe(s2.byCategory.session!.bytes - s1.byCategory.session!.bytes);
    expect(s2.growth!.byCategory.session!.bytes).toBeGreaterThanOrEqual(line(b).length * 20);
    await engine.close();
  });
});

describe('hostile history files', () => {
  const place = (t: TempEnv): string => {
    mkdirSync(t.env.CLEANERX_STATE_DIR!, { recursive: true });
    return join(t.env.CLEANERX_STATE_DIR!, HISTORY_FILE);
  };

  it('a corrupt file is ignored with a warning and replaced by this scan', async () => {
    t = makeTempEnv();
    const p = place(t);
    writeFileSync(p, '{"version":1,"agents":{"claude":[{"home":"/h","entries":[{"at":');
    const g = await recordScan(t.env.CLEANERX_STATE_DIR!, 'claude', '/h', T0, totals(1));
    expect(g.since).toBeNull();
    expect(g.warning).toMatch(/not a cleanerx scan history/);
    expect(parseHistory(readFileSync(p, 'utf8'))!.agents.claude![0]!.entries.length).toBe(1);
  });

  it('wrong shapes inside a valid file are dropped, the rest kept', () => {
    const h = parseHistory(
      JSON.stringify({
        version: 1,
        agents: {
          claude: [
            {
              home: '/h',
              entries: [{ at: -1, byCategory: {} }, { at: T0, byCategory: { session: { bytes: 'x', items: 1 }, cache: { bytes: 5, items: 1 } } }, null],
            },
          ],
          bogus: [],
        },
      }),
    );
    expect(h!.agents.claude![0]!.entries).toEqual([{ at: T0, byCategory: { cache: { bytes: 5, items: 1 } } }]);
    expect(parseHistory('[]')).toBeNull();
    expect(parseHistory(JSON.stringify({ version: 2, agents: {} }))).toBeNull();
  });

  it('a FIFO is not waited on, not replaced, and named in a warning', async () => {
    t = makeTempEnv();
    const p = place(t);
    expect(spawnSync('mkfifo', [p]).status).toBe(0);
    const g = await recordScan(t.env.CLEANERX_STATE_DIR!, 'claude', '/h', T0, totals(1));
    expect(g.warning).toMatch(/FIFO/);
    expect(lstatSync(p).isFIFO()).toBe(true);
  });

  it('a huge file is not read and not replaced', async () => {
    t = makeTempEnv();
    const p = place(t);
    writeFileSync(p, Buffer.alloc(MAX_HISTORY_BYTES + 1, 0x20));
    const g = await recordScan(t.env.CLEANERX_STATE_DIR!, 'claude', '/h', T0, totals(1));
    expect(g.warning).toMatch(/larger than/);
    expect(lstatSync(p).size).toBe(MAX_HISTORY_BYTES + 1);
  });

  it('a symlink is not followed, and its target is untouched', async () => {
    t = makeTempEnv();
    const p = place(t);
    const target = join(t.root, 'elsewhere.json');
    writeFileSync(target, 'keep');
    symlinkSync(target, p);
    const g = await recordScan(t.env.CLEANERX_STATE_DIR!, 'claude', '/h', T0, totals(1));
    expect(g.warning).toMatch(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(p).isSymbolicLink()).toBe(true);
  });

  it('the engine scan survives a FIFO history and lists the warning', async () => {
    t = makeTempEnv();
    const p = place(t);
    expect(spawnSync('mkfifo', [p]).status).toBe(0);
    const proj = join(t.env.CLAUDE_CONFIG_DIR!, 'projects', '-work-app');
    mkdirSync(proj, { recursive: true });
    writeFileSync(join(proj, `${randomUUID()}.jsonl`), '{"type":"user","message":{"role":"user","content":"x"}}\n');
    const engine = new Engine(ADAPTERS, t.ctx);
    const s = await engine.scan('claude');
    expect(s.warnings.some((w) => /Scan history ignored/.test(w.reason))).toBe(true);
    expect(s.sessionCount).toBe(1);
    await engine.close();
    expect(existsSync(p)).toBe(true);
  });
});

describe('sparkline', () => {
  it('one block per value, lowest to highest, flat when all equal', () => {
    expect(sparkline([0, 7, 14])).toBe('▁▄█');
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(sparkline([1, 2, 3, 4, 5], 2)).toBe('▁█');
    expect(sparkline([])).toBe('');
  });
});
