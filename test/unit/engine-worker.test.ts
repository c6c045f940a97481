// The EngineApi across the real worker (dist/worker.js): every listed method
// is offered, progress streams at the index ENGINE_METHODS names, the worker
// answers nothing outside the list, and it is built with the backup service.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../src/engine/api/api.js';
import { ENGINE_METHOD_NAMES, ENGINE_METHODS } from '../../src/engine/core/engine-methods.js';
import { createWorkerEngine, type WorkerReply } from '../../src/engine/api/worker-client.js';
import { deferred } from '../../src/app/deferred-engine.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import type { BackupProgress, ScanProgress } from '../../src/engine/core/model.js';
import { isWrongPassphrase } from '../../src/engine/core/passphrase-rule.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const WORKER = new URL('../../dist/worker.js', import.meta.url);

let t: TempEnv;
let engine: EngineApi | null = null;
beforeEach(() => {
  t = makeTempEnv();
  buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
});
afterEach(async () => {
  await engine?.close();
  engine = null;
  t.cleanup();
});

const start = (): EngineApi => (engine = createWorkerEngine(WORKER, { env: t.env, opts: { readOnly: false, demo: false } }));

describe('the engine over its worker', () => {
  it('is built from dist (npm run build)', () => {
    expect(existsSync(WORKER)).toBe(true);
  });

  it('the worker client and the deferred engine offer every listed method, and only those', () => {
    const w = start();
    const d = deferred(Promise.resolve(w));
    for (const api of [w, d]) {
      expect(Object.keys(api).sort()).toEqual([...ENGINE_METHOD_NAMES].sort());
      for (const m of ENGINE_METHOD_NAMES) expect(typeof api[m], m).toBe('function');
    }
    expect(
      Object.entries(ENGINE_METHODS)
        .filter(([, v]) => v.progress !== null)
        .map(([k]) => k),
    ).toEqual(['scan', 'execute', 'backupVerify', 'backupRestore']);
  });

  it('a scan streams its progress back and answers with the summary; pages follow', async () => {
    const w = start();
    const seen: ScanProgress[] = [];
    const s = await w.scan('pi', (p) => seen.push(p));
    expect(s.sessionCount).toBe(3);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.agent === 'pi')).toBe(true);
    const page = await w.page({ snapshotId: s.snapshotId, scope: { view: 'flat' }, filter: {}, sort: 'updated', offset: 0, limit: 10 });
    expect(page.total).toBe(3);
  });

  it('execute without its optional options still reaches the engine (the callback is not taken for them)', async () => {
    const w = start();
    await expect(w.execute('no-such-plan', undefined, () => undefined)).rejects.toThrow('This plan is no longer current; review the cleanup again.');
    await expect(w.execute('no-such-plan')).rejects.toThrow('This plan is no longer current');
  });

  it('the deferred engine waits for the engine that is still starting', async () => {
    let resolve!: (e: EngineApi) => void;
    const d = deferred(new Promise<EngineApi>((r) => (resolve = r)));
    const answer = d.backupsList();
    resolve(start());
    expect(await answer).toEqual([]);
  });

  it('is built with the backup service: the key store answers (an engine without one refuses)', async () => {
    const k = await start().keyInfo();
    expect(k).toMatchObject({ exists: false, store: 'file', needsPassphrase: true });
  });

  it("a wrong passphrase crosses as its own kind (the app asks again on it), and a backup's progress streams back", async () => {
    // A cheaper scrypt: the key store reads it from the worker's own process.env (a copy of this one's at its start).
    const saved = { mode: process.env.CLEANERX_TEST_MODE, logN: process.env.CLEANERX_SCRYPT_LOG_N };
    Object.assign(process.env, { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '10' });
    let w: EngineApi;
    try {
      w = start();
    } finally {
      for (const [k, v] of [
        ['CLEANERX_TEST_MODE', saved.mode],
        ['CLEANERX_SCRYPT_LOG_N', saved.logN],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    const s = await w.scan('pi');
    const plan = await w.plan(s.snapshotId, [
      s.selection[0]?.id ?? (await w.page({ snapshotId: s.snapshotId, scope: { view: 'flat' }, filter: {}, sort: 'updated', offset: 0, limit: 1 })).rows[0]!.id,
    ]);
    const r = await w.execute(plan.id, { backup: true, passphrase: 'correct horse battery' });
    expect(r.status, r.message).toBe('complete');
    const id = r.backupId!;
    const wrong = await w.backupVerify(id, 'not the passphrase').catch((e: unknown) => e);
    expect(isWrongPassphrase(wrong)).toBe(true);
    expect((wrong as Error).message).toMatch(/^Wrong passphrase/);
    const seen: BackupProgress[] = [];
    expect((await w.backupVerify(id, 'correct horse battery', (p) => seen.push(p))).entries).toBeGreaterThan(0);
    expect(seen[0]!.step).toBe('unlocking');
    expect(seen.at(-1)!.step).toBe('reading');
    // Any other refusal is not a wrong passphrase.
    expect(isWrongPassphrase(await w.backupVerify('no-such-id', 'x').catch((e: unknown) => e))).toBe(false);
  });

  it('refuses a call outside ENGINE_METHODS, even a public Engine method', async () => {
    const raw = new Worker(WORKER, { workerData: { env: t.env, opts: { readOnly: false, demo: false } } });
    try {
      const reply = await new Promise<WorkerReply>((resolve, reject) => {
        raw.once('message', resolve);
        raw.once('error', reject);
        raw.postMessage({ id: 1, method: 'snapshot', args: ['x'] });
      });
      expect(reply).toMatchObject({ id: 1, ok: false, error: 'unknown engine call snapshot', kind: 'internal' });
    } finally {
      await raw.terminate();
    }
  });
});
