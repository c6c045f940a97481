// "All applied" is said only when it is true (#26): every path of every
// planned item gone, no item listed by the rescan, and the journal recording
// that removal had started. Two lies are pinned here: every path gone while
// the rescan still lists the item (the agent's own index still has it), and
// every path gone while the journal says nothing had started (something
// else removed them). Neither may be accepted — in the engine, on the
// `recovery` command line, or in the recovery dialog — and a safe close
// stays possible. The one true case is checked alongside, so the harness
// itself can say "All applied".

import blessed from 'blessed';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRecovery } from '../../src/cli/recovery.js';
import type { Printer } from '../../src/cli/printer.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { journalDir, JournalStore, type Journal, type MutationStatus } from '../../src/engine/cleanup/journal.js';
import { listRecovery, recoveryAction, type RecoveryDeps } from '../../src/engine/cleanup/recovery.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { RecoveryModal } from '../../src/modals/recovery.js';
import { dispatch } from '../../src/widgets/bindings.js';
import { makeTheme } from '../../src/widgets/theme.js';
import { executorHome, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let screen: blessed.Widgets.Screen | null = null;
beforeEach(() => {
  ({ t, home, state } = executorHome('cleanerx-all-applied-', false));
});
afterEach(() => {
  screen?.destroy();
  screen = null;
  t.cleanup();
});

interface Case {
  /** What the journal recorded of its one mutation. */
  mutation: MutationStatus;
  /** Whether the rescan after the paths are gone still lists the item. */
  stillListed: boolean;
}

/**
 * Two sessions (a: one file, b: a file and a directory), planned and
 * journaled as a cleanup that stopped with `mutation` recorded; then every
 * planned path is removed from the disk, and recovery's rescan lists the
 * items again when `stillListed`.
 */
async function interrupted(c: Case): Promise<{ deps: RecoveryDeps; j: Journal; plan: CleanupPlan }> {
  const a = join(home, 'sessions', 'a.jsonl');
  const b = join(home, 'sessions', 'b.jsonl');
  const bDir = join(home, 'sessions', 'b');
  for (const f of [a, b, join(bDir, 'part.json')]) {
    mkdirSync(join(f, '..'), { recursive: true });
    writeFileSync(f, 'x');
  }
  const records = [sessionRecord('a', [a]), sessionRecord('b', [b, bDir])];
  const snap = snapshotOf(home, records);
  const plan = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
  const now = new Date().toISOString();
  const j: Journal = {
    formatVersion: 2,
    operationId: randomUUID(),
    agent: snap.agent,
    snapshotId: snap.id,
    createdAt: now,
    updatedAt: now,
    createBackup: false,
    plan,
    itemCategories: Object.fromEntries(plan.items.map((i) => [i.id, i.category])),
    status: c.mutation === 'pending' ? 'planned' : 'deleting',
    backupStatus: 'notRequested',
    mutations: plan.operations.map((o) => ({ index: o.index, kind: o.kind, itemIds: o.itemIds, sessionIds: o.sessionIds, status: c.mutation })),
  };
  await new JournalStore(state).create(j);
  for (const p of plan.items.flatMap((i) => i.paths)) rmSync(p, { recursive: true });
  const snaps = new Map<string, Snapshot>();
  const deps: RecoveryDeps = {
    stateDir: state,
    rescan: async () => {
      const s = snapshotOf(home, c.stillListed ? records : []);
      snaps.set(s.id, s);
      return s.summary();
    },
    snapshot: (id) => snaps.get(id)!,
    boundBackup: async () => null,
    restore: async () => {
      throw new Error('no backup in these tests');
    },
    discardCandidate: async () => undefined,
  };
  return { deps, j, plan };
}

function journalStatus(): string {
  const dir = journalDir(state);
  const [name] = readdirSync(dir).filter((n) => n.endsWith('.json'));
  return (JSON.parse(readFileSync(join(dir, name!), 'utf8')) as Journal).status;
}

/** What `cleanerx recovery` prints for these deps. */
async function cliLines(deps: RecoveryDeps): Promise<string[]> {
  const lines: string[] = [];
  const io: Printer = { out: (...l) => lines.push(...l), err: (...l) => lines.push(...l), prompt: () => undefined, progress: () => undefined };
  const engine = {
    recoveryList: () => listRecovery(deps),
    recoveryAction: async () => [],
    keyInfo: async () => ({ needsPassphrase: false }),
    takeSettledRestores: () => [],
  };
  const code = await runRecovery({ action: 'list' }, { engine: async () => engine as never, io, passphrase: { read: async () => '' } as never });
  expect(code).toBe(0);
  return lines;
}

/** Whether the recovery dialog lets `a` (accept) run for this entry. */
function dialogAccepts(op: Awaited<ReturnType<typeof listRecovery>>[number]): boolean {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  let accepted = false;
  const modal = new RecoveryModal(screen, makeTheme({}), [op], async (_op, action) => {
    if (action === 'accept') accepted = true;
    return [];
  });
  modal.paint();
  const r = dispatch([modal.keyContext()], 'a', { name: 'a', full: 'a' } as never);
  return r.kind === 'ran' && accepted;
}

describe('recovery says "All applied" only when it is true', () => {
  it('the true case: removal started, every path gone, nothing listed — All applied, and accept closes it as complete', async () => {
    const { deps, j } = await interrupted({ mutation: 'running', stillListed: false });
    const [op] = await listRecovery(deps);
    expect(op!.observed).toBe('All applied');
    expect(op!.canAccept).toBe(true);
    expect((await cliLines(deps)).join('\n')).toMatch(/observed: All applied — [\s\S]*can: accept, close/);
    expect(dialogAccepts(op!)).toBe(true);
    await recoveryAction(deps, j.operationId, 'accept');
    expect(journalStatus()).toBe('complete');
  });

  for (const mutation of ['running', 'applied'] as const) {
    it(`every path gone but the rescan still lists the items (mutation ${mutation}): never All applied, never accepted, closable`, async () => {
      const { deps, j } = await interrupted({ mutation, stillListed: true });
      const [op] = await listRecovery(deps);
      expect(op!.observed).not.toBe('All applied');
      expect(op!.observed).toBe('Partially applied');
      expect(op!.canAccept).toBe(false);
      expect(op!.canClose).toBe(true);
      expect(op!.items.map((i) => [i.itemId, i.state, i.listed])).toEqual([
        ['session:a', 'partial', true],
        ['session:b', 'partial', true],
      ]);
      for (const i of op!.items) expect(i.paths.map((p) => p.state)).toEqual(i.paths.map(() => 'missing'));
      const text = (await cliLines(deps)).join('\n');
      expect(text).not.toMatch(/All applied/);
      expect(text).toMatch(/can: close$/m);
      expect(dialogAccepts(op!)).toBe(false);
      await expect(recoveryAction(deps, j.operationId, 'accept')).rejects.toThrow(/^Cannot accept: /);
      expect(journalStatus()).toBe('deleting');
      await recoveryAction(deps, j.operationId, 'close');
      expect(journalStatus()).toBe('terminated');
    });
  }

  it('every path gone and nothing listed, but the journal records no removal started: Not provable, never accepted, closable', async () => {
    const { deps, j } = await interrupted({ mutation: 'pending', stillListed: false });
    const [op] = await listRecovery(deps);
    expect(op!.observed).toBe('Not provable');
    expect(op!.reason).toMatch(/no removal started/);
    expect(op!.canAccept).toBe(false);
    expect(op!.canClose).toBe(true);
    expect(op!.items.map((i) => i.state)).toEqual(['gone', 'gone']);
    const text = (await cliLines(deps)).join('\n');
    expect(text).not.toMatch(/All applied/);
    expect(text).toMatch(/observed: Not provable — /);
    expect(text).toMatch(/can: close$/m);
    expect(dialogAccepts(op!)).toBe(false);
    await expect(recoveryAction(deps, j.operationId, 'accept')).rejects.toThrow(/^Cannot accept: /);
    expect(journalStatus()).toBe('planned');
    await recoveryAction(deps, j.operationId, 'close');
    expect(journalStatus()).toBe('terminated');
  });
});
