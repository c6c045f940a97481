// The Overview and its all-agents view drawn from a given state at 80 and
// 120 columns, with no terminal: the lines in their order, every line in the
// width, long labels cut, an agent's escapes made inert.

import '../../src/adapters/registry.js';
import { describe, expect, it } from 'vitest';
import type { Installation } from '../../src/engine/core/model.js';
import type { AllAgentsOverview } from '../../src/engine/inventory/retention/all-agents.js';
import { allAgentsLines } from '../../src/screens/all-agents-render.js';
import { type OverviewSummary, overviewLines } from '../../src/screens/overview-render.js';
import { colour, expectDrawable, plainTheme, shown } from '../helpers/render-lines.js';

const EVIL = '\x1b[31mred\x1b]0;pwned\x07{bold}';

const inst = (agent: string, state: Installation['state'], home: string): Installation =>
  ({ agent, displayName: agent, memoryNotice: '', state, home, homeSource: 'default', warnings: [] }) as unknown as Installation;

const installations = [inst('pi', 'installed', '/home/me/.pi/agent'), inst('codex', 'notFound', `/home/me/${'very-long-dir/'.repeat(12)}codex`)];

const summary = (over: Partial<OverviewSummary> = {}): OverviewSummary => ({
  agent: 'pi',
  totals: { bytes: 52_000_000, items: 40 },
  sessionCount: 1234,
  projects: [
    { id: 'p1', label: `${'a-very-long-project-name-'.repeat(5)}end`, roots: [], sessions: 3, bytes: 30_000_000 },
    { id: 'p2', label: EVIL, roots: [], sessions: 1, bytes: 1_000_000 },
  ],
  writers: [],
  readOnly: false,
  byCategory: { session: { bytes: 40_000_000, items: 30 }, log: { bytes: 12_000_000, items: 10 } },
  largestSessions: [{ id: 's1', title: 'Fix the parser', bytes: 9_000_000, projectLabel: 'p1' }],
  ageHistogram: [
    { label: '< 7 days', sessions: 10, bytes: 1_000_000 },
    { label: '> 90 days', sessions: 5, bytes: 30_000_000 },
  ],
  warnings: [{ path: '/x', reason: `unreadable ${'file '.repeat(40)}` }],
  ...over,
});

const state = (over: Partial<Parameters<typeof overviewLines>[0]> = {}) => ({
  summary: summary(),
  scanning: false,
  agent: 'pi' as const,
  installations,
  ...over,
});

describe('overview render', () => {
  it('draws the agent, its categories, the largest rows, the ages, the warnings and every agent, in that order and in the width', () => {
    for (const cols of [80, 120]) {
      const W = cols - 2;
      const lines = overviewLines(state(), W, colour);
      expectDrawable(lines, W);
      const text = lines.map(shown);
      const at = (re: RegExp): number => text.findIndex((l) => re.test(l));
      expect(text[0]).toMatch(/^ pi {2}52\.0 MB managed in 40 items · 1,234 sessions · 2 projects$/);
      const order = [
        /^ Storage by category/,
        /^ {2}Sessions +█/,
        /^ Largest projects +Largest sessions$/,
        /^ Sessions by last update$/,
        /^ 1 warning — first: unreadable/,
        /^ All agents$/,
      ];
      const found = order.map(at);
      expect(found.every((i) => i >= 0)).toBe(true);
      expect([...found].sort((a, b) => a - b)).toEqual(found);
      // The long project name is cut and still leaves room for its bar and size.
      const project = text.find((l) => l.includes('a-very-long-pr'))!;
      expect(project).toMatch(/… █+ +30\.0 MB {2}Fix the parser +9\.0 MB$/);
      // The current agent is marked, the other's home path cut in the middle.
      expect(text.at(-2)).toMatch(/^ › pi +Installed +\/home\/me\/\.pi\/agent/);
      expect(text.at(-1)).toMatch(/^ {3}Codex +Not detected +\/home\/me\/.*…/);
      expect(text.at(-1)).toMatch(/codex *$/);
    }
  });

  it('makes a project label carrying escapes inert', () => {
    const lines = overviewLines(state(), 78, colour);
    const line = lines.find((l) => l.includes('red'))!;
    expect(line).not.toContain('\x1b');
    expect(line).toContain('{open}bold{close}');
  });

  it('wraps the running writers sentence instead of cutting it', () => {
    const writers = Array.from({ length: 6 }, (_, i) => ({ pid: 1000 + i, name: `agent-process-${i}` }));
    for (const cols of [80, 120]) {
      const lines = overviewLines(state({ summary: summary({ writers }) }), cols - 2, plainTheme);
      expectDrawable(lines, cols - 2);
      const text = lines.map(shown);
      const from = text.findIndex((l) => l.startsWith(' Running:'));
      expect(from).toBe(1);
      // The sentence runs until the blank line under the head (no attribution line in this summary).
      const running = text.slice(from, text.indexOf('', from));
      expect(running.length).toBeGreaterThan(1);
      expect(running.join(' ')).toContain('agent-process-5 (pid 1005)');
      expect(running.join(' ')).toContain('read-only until it exits.');
    }
  });

  it('says what it waits for before a scan', () => {
    expect(shown(overviewLines(state({ summary: null, scanning: true }), 78, plainTheme)[0]!)).toMatch(/^ Scanning/);
    expect(
      overviewLines(state({ summary: null, agent: null }), 78, plainTheme)
        .map(shown)
        .slice(-4, -2),
    ).toEqual(['', ' All agents']);
  });
});

const report: AllAgentsOverview = {
  agents: [
    {
      agent: 'pi',
      snapshotId: 's',
      scannedAt: 0,
      onDiskBytes: 5e9,
      attributedBytes: 5e9,
      sessions: 3,
      sessionBytes: 4e9,
      reclaimableBytes: 1e9,
      suggestedBytes: 5e8,
      suggestedIds: ['item:a'],
    } as AllAgentsOverview['agents'][number],
  ],
  totals: { onDiskBytes: 5e9, attributedBytes: 5e9, sessionBytes: 4e9, reclaimableBytes: 1e9, suggestedBytes: 5e8 },
  suggested: Array.from({ length: 12 }, (_, i) => ({
    agent: 'pi',
    id: `item:${i}`,
    label: i === 0 ? `${EVIL}${'long label '.repeat(20)}` : `cache ${i}`,
    bytes: 1e6 * (12 - i),
    kind: 'log' as never,
    cost: i % 2 ? ('regenerable' as const) : ('lost' as const),
    loses: i % 2 ? '' : 'its history',
  })),
  largest: [{ agent: 'pi', id: 'session:x', label: 'Fix the parser', bytes: 4e9, kind: 'session' }],
};

describe('all-agents render', () => {
  const all = (over: Partial<Parameters<typeof allAgentsLines>[0]> = {}) => ({
    report,
    installations: [...installations, inst('claude', 'dataOnly', '/home/me/.claude')],
    progress: new Map(),
    failed: new Map(),
    ...over,
  });

  it('draws the totals, a row per detected agent, the suggested plan cut to the height and the largest rows', () => {
    for (const cols of [80, 120]) {
      const W = cols - 2;
      const lines = allAgentsLines(all({ progress: new Map([['claude', { files: 12_345 }]]) }), W, 21, colour);
      expectDrawable(lines, W);
      expect(lines.length).toBeLessThanOrEqual(21);
      const text = lines.map(shown);
      expect(text[0]).toMatch(/^ All agents · on disk 5\.0 GB · reclaimable now 1\.0 GB · suggested 500 MB$/);
      expect(text[1]).toMatch(/^ Agent +On disk/);
      expect(text[2]).toMatch(/^ pi {11} +5\.0 GB +4\.0 GB +1\.0 GB +500 MB$/);
      // An agent not found has no row; one still scanning says so.
      expect(text.some((l) => l.includes('codex'))).toBe(false);
      expect(text[3]).toMatch(/^ Claude Code +scanning in the background · 12,345 files$/);
      expect(text).toContain(' Suggested plan: the safe and regenerable bytes · S marks and reviews it');
      const more = text.find((l) => /^ {2}\+\d+ more rows, /.test(l));
      expect(more).toBeDefined();
      const first = text.find((l) => l.includes('long label'))!;
      expect(first).toMatch(/…/);
      expect(first).toMatch(/12\.0 MB loses its hist…$/);
      expect(lines.find((l) => l.includes('long label'))).toContain('{open}bold{close}');
    }
  });

  it('says when a scan failed and when there is nothing to suggest', () => {
    const lines = allAgentsLines(all({ report: { ...report, suggested: [] }, failed: new Map([['claude', 'disk on fire']]) }), 78, 30, plainTheme).map(shown);
    expect(lines).toContain(' Claude Code  scan failed: disk on fire');
    expect(lines).toContain(' Suggested plan: nothing safe to reclaim right now');
    expect(lines).toContain(' Largest across agents');
  });

  it('has a head and a waiting line before the first report', () => {
    const lines = allAgentsLines(all({ report: null }), 78, 30, plainTheme).map(shown);
    expect(lines[2]).toMatch(/^ pi +waiting for its scan$/);
  });
});
