// The journal is written from pieces: the text of its deep-frozen parts (the
// plan, the categories, the captured identities) is made once and reused.
// What reaches the disk must still be exactly JSON.stringify(journal) + '\n'
// at every transition, and the frozen parts must stay unchangeable.

import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { type Journal, journalBytes, JournalStore, journalPath } from '../../src/engine/cleanup/journal.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-journal-bytes-');
});
afterEach(() => t.cleanup());

/** A journal with text that is not ASCII, numbers that are not integers, and fields that are undefined. */
function journal(): Journal {
  const now = new Date().toISOString();
  const items = Array.from({ length: 40 }, (_, i) => ({
    id: `session:${i}`,
    label: i % 3 ? `部署 the cache (${i}) 🚀 "quoted" \\ back\nslash` : `plain ${i}`,
    category: 'session' as const,
    bytes: i * 4096,
    paths: [`/home/u/.pi/agent/sessions/--p--/${i}.jsonl`],
    recoverable: true,
    depth: 0,
    sessionId: `${i}`,
    updatedAt: 1786739441023 + i / 3,
    includedBecause: undefined,
  }));
  const plan = {
    id: 'p',
    snapshotId: 's',
    agent: 'pi',
    createdAt: now,
    selectedItemIds: items.map((i) => i.id),
    expandedSessionIds: items.map((i) => i.sessionId),
    items,
    operations: [
      { index: 0, kind: 'removePaths', itemIds: items.map((i) => i.id), sessionIds: [], paths: items.flatMap((i) => i.paths), bytes: 1, blockers: [] },
    ],
    estimatedBytes: 0,
    estimatedBackupBytes: 0,
    backupEligible: false,
    irreversible: true,
    routeNotes: [],
    blockers: [],
  } as unknown as CleanupPlan;
  return {
    formatVersion: 2,
    operationId: '6f1f3a52-0c1e-4b7a-9a53-1d1c2a0b9e11',
    agent: 'pi',
    snapshotId: 's',
    createdAt: now,
    updatedAt: now,
    createBackup: false,
    plan,
    itemCategories: Object.fromEntries(items.map((i) => [i.id, 'session' as const])),
    status: 'planned',
    backupStatus: 'notRequested',
    mutations: [0, 1].map((index) => ({ index, kind: 'removePaths', itemIds: [], sessionIds: [], status: 'pending' as const, startedAt: undefined })),
    message: undefined,
  };
}

describe('journal bytes', () => {
  it('journalBytes is JSON.stringify + newline, frozen or not', () => {
    const j = journal();
    expect(journalBytes(j).toString('utf8')).toBe(`${JSON.stringify(j)}\n`);
  });

  it('every write is exactly JSON.stringify of the journal at that moment, the frozen text reused or not', async () => {
    const stateDir = t.env.CLEANERX_STATE_DIR!;
    const store = new JournalStore(stateDir);
    const j = journal();
    const onDisk = (): string => readFileSync(journalPath(stateDir, j.operationId), 'utf8');
    await store.create(j);
    expect(onDisk()).toBe(`${JSON.stringify(j)}\n`);
    const steps: [(x: Journal) => void, string][] = [
      [
        (x) => {
          x.mutations.forEach((m, i) => (m.pre = [{ path: `/p/${i}`, dev: 1, ino: 2 + i, size: 3.5, revision: 'r✓' }]));
        },
        'journal:preflight',
      ],
      [(x) => (x.status = 'deleting'), 'journal:deleting'],
      [(x) => (x.mutations[0]!.status = 'running'), 'mutation:0:running'],
      [
        (x) => {
          x.status = 'failed';
          x.message = 'Stopped: “ünïcode” \u2028 and a NUL \0 here.';
        },
        'journal:failed',
      ],
      [(x) => (x.message = undefined), 'journal:verifying'],
    ];
    for (const [change, point] of steps) {
      await store.transition(j, change, point);
      expect(onDisk(), point).toBe(`${JSON.stringify(j)}\n`);
      expect(JSON.parse(onDisk())).toEqual(JSON.parse(JSON.stringify(j)));
    }
  });

  it('the plan and the captured identities cannot be changed in place once written', async () => {
    const store = new JournalStore(t.env.CLEANERX_STATE_DIR!);
    const j = journal();
    await store.create(j);
    await store.transition(
      j,
      (x) => {
        x.mutations[0]!.pre = [{ path: '/p', dev: 1, ino: 2, size: 3, revision: 'r' }];
      },
      'journal:preflight',
    );
    expect(() => {
      (j.plan.items[0] as { label: string }).label = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (j.plan.items[0]!.paths as string[]).push('/elsewhere');
    }).toThrow(TypeError);
    expect(() => {
      (j.mutations[0]!.pre![0] as { ino: number }).ino = 9;
    }).toThrow(TypeError);
    await expect(store.transition(j, (x) => (x.plan = { ...x.plan }), 'journal:deleting')).rejects.toThrow(/immutable plan/);
  });
});
