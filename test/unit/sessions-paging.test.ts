// The Sessions screen's paging against a fake engine whose page answers the
// test releases in the order it chooses: the orders a loaded machine
// produces (a provisional view's page answered, or refused, after the final
// view came; a reset with no paint after it). Whatever the order, once every
// answer is in, the list shows the final view's rows; while the first page is
// on its way it says so, never "Nothing matches".

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { PageRequest, PageResult, Row, ScanSummary } from '../../src/engine/core/model.js';
import { Marks } from '../../src/screens/marks.js';
import type { AppContext } from '../../src/screens/screen.js';
import { SessionsScreen } from '../../src/screens/sessions.js';
import { makeTheme } from '../../src/widgets/theme.js';
import { viewRow } from '../helpers/sessions.js';
import { dispatch } from '../../src/widgets/bindings.js';

interface Asked {
  req: PageRequest;
  resolve(r: PageResult): void;
  reject(e: Error): void;
}

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

const row = (id: string, title: string): Row => viewRow({ id, title });
const summaryOf = (snapshotId: string, provisional: boolean): ScanSummary =>
  ({ snapshotId, provisional, sessionCount: 2, scannedAt: 0, warnings: [], agent: 'pi' }) as unknown as ScanSummary;
const answer = (snapshotId: string): PageResult => ({
  snapshotId,
  total: 2,
  offset: 0,
  rows: [row('a', `first of ${snapshotId}`), row('b', `second of ${snapshotId}`)],
  matched: 2,
  matchedBytes: 2048,
});

function setUp() {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  const asked: Asked[] = [];
  let summary: ScanSummary | null = null;
  let queued = false;
  let paints = 0;
  const ctx = {
    theme: makeTheme({}),
    screen,
    marks: new Marks(),
    readOnly: false,
    demo: false,
    now: () => 0,
    summary: () => summary,
    scanning: () => false,
    message: () => undefined,
    // As the app's: one paint per turn of the event loop, however many ask.
    requestRender: () => {
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        paint();
      });
    },
    engine: {
      page: (req: PageRequest) => new Promise<PageResult>((resolve, reject) => asked.push({ req, resolve, reject })),
      detail: () => new Promise(() => undefined),
    },
  } as unknown as AppContext;
  const sessions = new SessionsScreen(ctx);
  sessions.root.show();
  const paint = (): void => {
    paints++;
    sessions.paint();
    screen!.render();
  };
  const text = (): string =>
    (screen as unknown as { lines: [number, string][][] }).lines
      .map((l) =>
        l
          .map((c) => c[1])
          .join('')
          .trimEnd(),
      )
      .join('\n');
  /** Lets every answer released so far, and the paints they ask for, run. */
  const turn = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  const setSummary = (s: ScanSummary | null): void => {
    summary = s;
    sessions.onSummary();
  };
  return { asked, paint, text, turn, setSummary, ctx, sessions, paints: () => paints };
}

describe('Sessions paging', () => {
  it('says the first page is on its way (not "Nothing matches") until it comes, then shows its rows', async () => {
    const v = setUp();
    v.setSummary(summaryOf('final', false));
    v.paint();
    expect(v.text()).toContain('Loading sessions…');
    expect(v.text()).not.toContain('Nothing matches');
    const first = v.asked.filter((a) => a.req.offset === 0);
    expect(first.length).toBeGreaterThan(0);
    for (const a of first) a.resolve(answer('final'));
    await v.turn();
    expect(v.text()).toContain('first of final');
    expect(v.text()).toMatch(/2 sessions · 2(\.0)? Ki?B/);
  });

  for (const outcome of ['answered', 'refused'] as const) {
    for (const when of ['before', 'after'] as const) {
      it(`a provisional view's page ${outcome} ${when} the paint that follows the final view: the final rows are drawn`, async () => {
        const v = setUp();
        v.setSummary(summaryOf('partial', true));
        v.paint();
        const stale = v.asked.splice(0);
        expect(stale.every((a) => a.req.snapshotId === 'partial')).toBe(true);
        v.setSummary(summaryOf('final', false));
        v.ctx.requestRender();
        const release = (): void => {
          for (const a of stale) {
            if (outcome === 'answered') a.resolve(answer('partial'));
            // The engine dropped the provisional snapshot with the scan's end.
            else a.reject(new Error('This view belongs to an older scan; rescan (r) and try again.'));
          }
        };
        if (when === 'before') release();
        await v.turn();
        if (when === 'after') release();
        await v.turn();
        for (const a of v.asked.splice(0)) a.resolve(answer(a.req.snapshotId));
        await v.turn();
        expect(v.text()).toContain('first of final');
        expect(v.text()).not.toContain('partial');
        expect(v.text()).not.toMatch(/Nothing matches|older scan/);
      });
    }
  }

  for (const outcome of ['answered', 'refused'] as const) {
    it(`a reset with no paint after it: the old view's page ${outcome} asks for the paint that requests the new one`, async () => {
      const v = setUp();
      v.setSummary(summaryOf('partial', true));
      v.paint();
      const stale = v.asked.splice(0);
      // The final view comes while nothing asks for a paint (the answer order that lost it).
      v.setSummary(summaryOf('final', false));
      for (const a of stale) {
        if (outcome === 'answered') a.resolve(answer('partial'));
        else a.reject(new Error('This view belongs to an older scan; rescan (r) and try again.'));
      }
      await v.turn();
      expect(v.asked.some((a) => a.req.snapshotId === 'final')).toBe(true);
      for (const a of v.asked.splice(0)) a.resolve(answer(a.req.snapshotId));
      await v.turn();
      expect(v.text()).toContain('first of final');
    });
  }
});

describe('Sessions paging while a scan publishes partial views', () => {
  const partial = (snapshotId: string, count: number): ScanSummary => ({ ...summaryOf(snapshotId, true), sessionCount: count }) as ScanSummary;
  const rowsOf = (snapshotId: string, offset: number, total: number): PageResult => ({
    snapshotId,
    total,
    offset,
    rows: Array.from({ length: Math.max(0, Math.min(50, total - offset)) }, (_, i) => row(`s${offset + i}`, `row ${offset + i} of ${snapshotId}`)),
    matched: total,
    matchedBytes: total * 1024,
  });
  /** Answers every page asked for, and those the paints after them ask for. */
  const answerAll = async (v: ReturnType<typeof setUp>, total: number): Promise<void> => {
    for (let i = 0; i < 5 && v.asked.length; i++) {
      for (const a of v.asked.splice(0)) a.resolve(rowsOf(a.req.snapshotId, a.req.offset, total));
      await v.turn();
    }
  };
  const settled = (v: ReturnType<typeof setUp>): boolean => v.sessions.paintState().settled;

  it('the next partial view keeps the rows on screen, settled, until its pages are in; then they change at once', async () => {
    const v = setUp();
    v.setSummary(partial('p1', 120));
    v.paint();
    await answerAll(v, 120);
    expect(v.text()).toContain('row 0 of p1');
    expect(settled(v)).toBe(true);

    v.setSummary(partial('p2', 400));
    v.ctx.requestRender();
    await v.turn();
    // The old rows stay and still count as the answer to a key (a cursor move paints them at once).
    expect(v.text()).toContain('row 0 of p1');
    expect(v.text()).not.toContain('Loading sessions…');
    expect(settled(v)).toBe(true);
    const asked = v.asked.splice(0);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((a) => a.req.snapshotId === 'p2')).toBe(true);
    // One page in, one still out: nothing of p2 shows yet (no mixed screen).
    const [first, ...rest] = asked;
    first!.resolve(rowsOf('p2', first!.req.offset, 400));
    await v.turn();
    if (rest.length) {
      expect(v.text()).toContain('row 0 of p1');
      expect(v.text()).not.toContain('of p2');
    }
    for (const a of rest) a.resolve(rowsOf('p2', a.req.offset, 400));
    await v.turn();
    await answerAll(v, 400);
    expect(v.text()).toContain('row 0 of p2');
    expect(v.text()).not.toContain('of p1');
    expect(v.text()).toMatch(/400 sessions/);
    expect(settled(v)).toBe(true);
  });

  it('a partial view refused while the next one gathers its pages: the rows wait (stale) and the newest view is drawn', async () => {
    const v = setUp();
    v.setSummary(partial('p1', 120));
    v.paint();
    await answerAll(v, 120);
    v.setSummary(partial('p2', 200));
    v.ctx.requestRender();
    await v.turn();
    for (const a of v.asked.splice(0)) a.reject(new Error('This view belongs to an older scan; rescan (r) and try again.'));
    await v.turn();
    expect(settled(v)).toBe(false);
    v.setSummary(partial('p3', 300));
    v.ctx.requestRender();
    await v.turn();
    await answerAll(v, 300);
    expect(v.text()).toContain('row 0 of p3');
    expect(v.text()).not.toMatch(/of p1|older scan/);
    expect(settled(v)).toBe(true);
  });

  it('the final view keeps the partial rows on screen and answering keys until its pages are in; nothing is marked from them, and it is not settled', async () => {
    const v = setUp();
    const said: string[] = [];
    (v.ctx as unknown as { message: (m: string) => void }).message = (m) => said.push(m);
    v.setSummary(partial('p1', 120));
    v.paint();
    await answerAll(v, 120);
    v.setSummary(summaryOf('final', false));
    v.ctx.requestRender();
    await v.turn();
    // A key typed as the scan lands is answered at once, from the rows on hand (no "Loading sessions…").
    expect(v.text()).toContain('row 0 of p1');
    expect(v.text()).not.toContain('Loading sessions…');
    expect(settled(v)).toBe(false);
    // A mark meanwhile is refused, as on a partial view: those rows are not the final view's.
    expect(dispatch([v.sessions.keyContext()], ' ', { name: 'space', full: 'space' } as never).kind).toBe('ran');
    expect(v.ctx.marks.count).toBe(0);
    expect(said.at(-1)).toMatch(/scan/i);
    await answerAll(v, 2);
    expect(v.text()).toContain('row 0 of final');
    expect(v.text()).not.toContain('of p1');
    expect(settled(v)).toBe(true);
  });
});
