// The one review of several agents' marks (#28.1) and Back up only (#29.6):
// one typed confirmation for the whole, only on the whole word (`delete`;
// `backup` for Back up only, where `b` is a letter of the word, not the
// backup toggle); a blocked agent is shown blocked and left out of what
// runs; when every agent is blocked nothing can be confirmed. And the
// per-agent state behind it: one agent's new scan never drops another's marks.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PerAgent } from '../../src/app/per-agent.js';
import type { AgentKind, CleanupPlan, ScanSummary } from '../../src/engine/core/model.js';
import { BACKUP_WORD, GroupReviewModal } from '../../src/modals/review-all.js';
import { dispatch } from '../../src/widgets/bindings.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function headless(): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

function planOf(agent: AgentKind, o: Partial<CleanupPlan> = {}): CleanupPlan {
  return {
    id: `plan-${agent}`,
    snapshotId: `snap-${agent}`,
    agent,
    items: [{ id: `session:${agent}-1`, label: `Fix the parser (${agent})`, category: 'session', bytes: 10, paths: [], recoverable: true, depth: 0 }],
    operations: [],
    estimatedBytes: 10,
    estimatedBackupBytes: 10,
    backupEligible: true,
    routeNotes: [],
    blockers: [],
    ...o,
  } as unknown as CleanupPlan;
}

interface Run {
  confirmed: { agents: AgentKind[]; backup: boolean }[];
  closed: boolean;
  text: string;
}

/** Opens the grouped review, types `text` key by key through the app's dispatch, presses Enter. */
function typeAndEnter(plans: CleanupPlan[], text: string): Run {
  const confirmed: Run['confirmed'] = [];
  const review = new GroupReviewModal(headless(), makeTheme({}), plans, (runnable, backup) => confirmed.push({ agents: runnable.map((p) => p.agent), backup }));
  const ctx = review.keyContext();
  for (const ch of text) dispatch([ctx], ch, { name: ch, full: ch } as never);
  review.paint();
  // Without the colours' escapes, wrapped lines joined: the sentences as the terminal shows them.
  const shown = review.box
    .getContent()
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replace(/\n\s*/g, ' ');
  dispatch([ctx], '\r', { name: 'enter', full: 'enter' } as never);
  return { confirmed, closed: review.closed, text: shown };
}

const backupOnly = (agent: AgentKind, o: Partial<CleanupPlan> = {}): CleanupPlan => planOf(agent, { action: 'backupOnly', ...o });

describe('the grouped review', () => {
  it('one confirmation runs every agent nothing blocks; a blocked agent is shown blocked and left out', () => {
    const plans = [planOf('codex'), planOf('claude', { blockers: ['Claude Code is running (pid 7).'] }), planOf('pi')];
    const r = typeAndEnter(plans, 'delete');
    expect(r.confirmed).toEqual([{ agents: ['codex', 'pi'], backup: false }]);
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/Claude Code · 1 item .* · blocked, skipped/);
    expect(r.text).toContain('Claude Code is running (pid 7).');
    expect(r.text).toMatch(/2 agents · 2 items · estimated reclaimed 20 B on disk · 1 blocked, skipped/);
  });

  it('never on a prefix, the word with more, or Back up only’s word', () => {
    for (const typed of ['d', 'del', 'delet', 'deletee', 'xdelete', 'backup'])
      expect(typeAndEnter([planOf('codex'), planOf('pi')], typed), typed).toMatchObject({ confirmed: [], closed: false });
  });

  it('b turns the backup on for the agents that offer one, and the one warning names those that have none', () => {
    const r = typeAndEnter([planOf('codex', { backupEligible: false, backupWhyNot: 'Codex has no import route.' }), planOf('pi')], 'bdelete');
    expect(r.confirmed).toEqual([{ agents: ['codex', 'pi'], backup: true }]);
    expect(r.text).toMatch(/Codex · .* · backup: not offered/);
    expect(r.text).toMatch(/pi · .* · backup: on/);
    expect(r.text).toMatch(/Irreversible:.*\(no backup for Codex\)/s);
  });

  it('every agent blocked: nothing is typed, Enter only closes', () => {
    const r = typeAndEnter([planOf('codex', { blockers: ['x'] }), planOf('pi', { blockers: ['y'] })], 'delete');
    expect(r).toMatchObject({ confirmed: [], closed: true });
  });
});

describe('Back up only', () => {
  it('runs on the whole word `backup` (its b is a letter, not the toggle), always with the backup', () => {
    expect(BACKUP_WORD).toBe('backup');
    const r = typeAndEnter([backupOnly('pi'), backupOnly('claude')], 'backup');
    expect(r.confirmed).toEqual([{ agents: ['pi', 'claude'], backup: true }]);
    expect(r.text).toMatch(/Nothing is removed/);
    expect(r.text).not.toMatch(/Irreversible|loses:/);
  });

  it('never on a prefix, `delete`, or more than the word', () => {
    for (const typed of ['b', 'back', 'backu', 'delete', 'backups', 'xbackup'])
      expect(typeAndEnter([backupOnly('pi')], typed), typed).toMatchObject({ confirmed: [], closed: false });
  });

  it('an agent whose sessions cannot be restored is blocked with the reason; the others still run', () => {
    const r = typeAndEnter(
      [backupOnly('codex', { blockers: ['Back up only is not offered for this plan: Codex has no import route.'] }), backupOnly('pi')],
      'backup',
    );
    expect(r.confirmed).toEqual([{ agents: ['pi'], backup: true }]);
    expect(r.text).toMatch(/Codex .* blocked, skipped/);
  });
});

describe('per-agent state', () => {
  const summary = (agent: AgentKind, ids: string[], snap = `snap-${agent}`): ScanSummary =>
    ({ agent, snapshotId: snap, items: [], selection: ids.map((id) => ({ id, projectId: 'p', bytes: 5 })) }) as unknown as ScanSummary;

  it("an agent's marks survive another agent's scan, and only its own new scan rebases them", () => {
    const per = new PerAgent();
    per.adopt(summary('pi', ['session:a', 'session:b']));
    per.adopt(summary('claude', ['session:c']));
    per.marksOf('pi').addAll(['session:a', 'session:b']);
    per.marksOf('claude').add('session:c');
    // Claude is scanned again and its session is gone: pi's marks stay whole.
    per.adopt(summary('claude', [], 'snap-claude-2'));
    expect(per.marksOf('pi').list()).toEqual(['session:a', 'session:b']);
    expect(per.marksOf('claude').count).toBe(0);
    // pi's own new scan drops only what it no longer has.
    per.adopt(summary('pi', ['session:b'], 'snap-pi-2'));
    expect(per.marksOf('pi').list()).toEqual(['session:b']);
    expect(per.totals()).toEqual({ count: 1, bytes: 5, agents: 1 });
    expect(per.marked(['codex', 'claude', 'pi'])).toEqual([{ agent: 'pi', summary: per.summaryOf('pi'), ids: ['session:b'] }]);
  });

  it('a partial view is never kept in place of a finished scan', () => {
    const per = new PerAgent();
    const done = summary('pi', ['session:a']);
    per.adopt(done);
    per.adopt({ ...summary('pi', [], 'snap-partial'), provisional: true } as ScanSummary);
    expect(per.summaryOf('pi')).toBe(done);
  });
});
