// The journal's mutation marks (running, applied) are written at most every
// MUTATION_MARK_INTERVAL_MS while one mutation follows another; the first
// mark of a run (recovery's proof that a removal had started) and every other
// transition are written at once, the latter carrying the held marks. Read
// back from the real file after each step.

import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Journal, JournalStore, journalPath, MUTATION_MARK_INTERVAL_MS } from '../../src/engine/cleanup/journal.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { minimalJournal } from '../helpers/journal-fixture.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-journal-marks-');
});
afterEach(() => t.cleanup());

function journal(mutations: number): Journal {
  return minimalJournal({ mutations });
}

describe('journal mutation marks', () => {
  it('writes the first mark at once, holds the marks that follow within the interval, and a status transition writes them all', async () => {
    const stateDir = t.env.CLEANERX_STATE_DIR!;
    const store = new JournalStore(stateDir);
    const j = journal(3);
    const onDisk = (): Journal => JSON.parse(readFileSync(journalPath(stateDir, j.operationId), 'utf8'));
    await store.create(j);
    await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
    const started = Date.now();
    await store.transition(j, (x) => (x.mutations[0]!.status = 'running'), 'mutation:0:running');
    expect(onDisk().mutations[0]!.status).toBe('running');
    await store.transition(j, (x) => (x.mutations[0]!.status = 'applied'), 'mutation:0:applied');
    await store.transition(j, (x) => (x.mutations[1]!.status = 'running'), 'mutation:1:running');
    if (Date.now() - started < MUTATION_MARK_INTERVAL_MS) expect(onDisk().mutations.map((m) => m.status)).toEqual(['running', 'pending', 'pending']);
    await store.transition(j, (x) => (x.mutations[1]!.status = 'applied'), 'mutation:1:applied');
    await store.transition(j, (x) => (x.status = 'verifying'), 'journal:verifying');
    const d = onDisk();
    expect(d.status).toBe('verifying');
    expect(d.mutations.map((m) => m.status)).toEqual(['applied', 'applied', 'pending']);
  });

  it('a mark after the interval is written at once', async () => {
    const stateDir = t.env.CLEANERX_STATE_DIR!;
    const store = new JournalStore(stateDir);
    const j = journal(2);
    await store.create(j);
    await store.transition(j, (x) => (x.mutations[0]!.status = 'running'), 'mutation:0:running');
    await new Promise((r) => setTimeout(r, MUTATION_MARK_INTERVAL_MS + 20));
    await store.transition(j, (x) => (x.mutations[0]!.status = 'applied'), 'mutation:0:applied');
    expect((JSON.parse(readFileSync(journalPath(stateDir, j.operationId), 'utf8')) as Journal).mutations[0]!.status).toBe('applied');
  });
});
