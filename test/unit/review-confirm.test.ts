// The review's typed confirmation (#26): a cleanup runs only when the whole
// word is typed — `delete` for a deletion, the action itself for an archive
// or unarchive plan. A prefix of the word (`d`, `del`, `delet`), the word
// with more after it, another plan's word or a word that merely ends the
// right one never runs anything. Keys go through the same dispatch the app
// uses, so a letter a binding claims is not typed.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { CONFIRM_WORD, ReviewModal } from '../../src/modals/review.js';
import { dispatch } from '../../src/widgets/bindings.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function headless(): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

function planOf(action?: 'archive' | 'unarchive'): CleanupPlan {
  return {
    id: 'plan-1',
    snapshotId: 'snap-1',
    agent: 'pi',
    items: [{ id: 'session:a', label: 'Fix the parser', category: 'session', bytes: 10, paths: [], recoverable: true, depth: 0 }],
    operations: [],
    estimatedBytes: 10,
    estimatedBackupBytes: 10,
    backupEligible: true,
    routeNotes: [],
    blockers: [],
    ...(action ? { action } : {}),
  } as unknown as CleanupPlan;
}

/** Opens a review of the plan, types `text` key by key and presses Enter: did the cleanup start, and is the review still open? */
function typeAndEnter(plan: CleanupPlan, text: string): { confirmed: number; closed: boolean } {
  let confirmed = 0;
  const review = new ReviewModal(headless(), makeTheme({}), plan, [], () => confirmed++);
  const ctx = review.keyContext();
  for (const ch of text) dispatch([ctx], ch, { name: ch, full: ch } as never);
  dispatch([ctx], '\r', { name: 'enter', full: 'enter' } as never);
  review.paint();
  const out = { confirmed, closed: review.closed };
  screen?.destroy();
  screen = null;
  return out;
}

describe('the typed confirmation', () => {
  it('runs a deletion only on the whole word `delete`', () => {
    expect(CONFIRM_WORD).toBe('delete');
    expect(typeAndEnter(planOf(), 'delete')).toEqual({ confirmed: 1, closed: true });
  });

  it('never on a prefix of the word: the review stays open, nothing runs', () => {
    for (const prefix of ['d', 'de', 'del', 'dele', 'delet']) expect(typeAndEnter(planOf(), prefix), prefix).toEqual({ confirmed: 0, closed: false });
  });

  it('never on the word with more typed after it, before it, or on another word', () => {
    for (const other of ['deletee', 'delete1', 'xdelete', 'elete', 'remove', 'yes', 'archive'])
      expect(typeAndEnter(planOf(), other), other).toEqual({ confirmed: 0, closed: false });
  });

  it('an empty line cancels without running', () => {
    expect(typeAndEnter(planOf(), '')).toEqual({ confirmed: 0, closed: true });
  });

  it('an archive or unarchive plan wants its own word whole: not a prefix, not `delete`, not the word it ends with', () => {
    expect(typeAndEnter(planOf('archive'), 'archive')).toEqual({ confirmed: 1, closed: true });
    expect(typeAndEnter(planOf('unarchive'), 'unarchive')).toEqual({ confirmed: 1, closed: true });
    for (const [action, typed] of [
      ['archive', 'a'],
      ['archive', 'arch'],
      ['archive', 'archiv'],
      ['archive', 'delete'],
      ['archive', 'unarchive'],
      ['unarchive', 'u'],
      ['unarchive', 'unarch'],
      ['unarchive', 'archive'],
      ['unarchive', 'delete'],
    ] as const)
      expect(typeAndEnter(planOf(action), typed), `${action}: ${typed}`).toEqual({ confirmed: 0, closed: false });
  });
});

describe('what an archive review promises', () => {
  const text = (plan: CleanupPlan): string => {
    const review = new ReviewModal(headless(), makeTheme({}), plan, [], () => undefined);
    review.paint();
    const out = review.box.getContent();
    screen?.destroy();
    screen = null;
    return out;
  };

  it('an archive the agent can undo says reversible; a one-way archive (OpenCode 1.18) never does (#27)', () => {
    expect(text(planOf('archive'))).toMatch(/Reversible: unarchive brings them back/);
    const oneWay = text({ ...planOf('archive'), agent: 'opencode', irreversible: true });
    expect(oneWay).toMatch(/frees 0 B, one-way/);
    expect(oneWay).toMatch(/OpenCode has no unarchive in this version/);
    expect(oneWay).not.toMatch(/[Rr]eversible/);
  });
});
