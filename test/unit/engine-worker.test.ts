// The EngineApi across the real worker (dist/worker.js): every listed method
// is offered, progress streams at the index ENGINE_METHODS names, the worker
// answers nothing outside the list, and it is built with the backup service.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_METHOD_NAMES, ENGINE_METHODS, type EngineApi } from '../../src/engine/api/api.js';
import { createWorkerEngine, type WorkerReply } from '../../src/engine/api/worker-client.js';
import { deferred } from '../../src/app/deferred-engine.js';
import { buildPiFixture } from '../../src/demo/fixtures/pi.js';
import type { ScanProgress } from '../../src/engine/core/model.js';
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
    ).toEqual(['scan', 'execute']);
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
