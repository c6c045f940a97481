// EngineApi over a worker thread: the UI thread never waits on the disk.
// Calls are matched to replies by id; scan progress arrives as events.

import { Worker } from 'node:worker_threads';
import type { EngineApi, EngineOptions } from './api.js';
import type { ExecuteProgress, ScanProgress } from '../core/model.js';
import { RequestError } from '../core/validate.js';

export interface WorkerInit {
  env: Record<string, string | undefined>;
  opts: EngineOptions;
}

export type WorkerRequest = { id: number; method: keyof EngineApi; args: unknown[] };
export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string; kind: 'request' | 'usage' | 'internal' }
  | { id: number; progress: ScanProgress | ExecuteProgress };

/** Three semi-spaces' worth (V8 sizes the young generation as 3 × the semi-space). */
const YOUNG_GENERATION_MB = 12;

export function createWorkerEngine(workerUrl: URL, init: WorkerInit): EngineApi {
  // A smaller young generation (4 MiB semi-spaces instead of 16): a 100k-session
  // scan allocates garbage per file, and the default lets the worker's heap run
  // ~30 MiB ahead of what it keeps; measured no slower (more, cheaper scavenges).
  const worker = new Worker(workerUrl, { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  worker.unref();
  let next = 1;
  type Progress = (p: never) => void;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; progress?: Progress }>();
  worker.on('message', (m: WorkerReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    if ('progress' in m) {
      (p.progress as ((x: unknown) => void) | undefined)?.(m.progress);
      return;
    }
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(m.kind === 'request' ? new RequestError(m.error) : new Error(m.error));
  });
  const fail = (e: Error): void => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('error', (e) => fail(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', (code) => fail(new Error(`engine worker stopped (exit ${code})`)));

  const call = (method: keyof EngineApi, args: unknown[], progress?: Progress): Promise<never> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress });
      worker.postMessage({ id, method, args } satisfies WorkerRequest);
    });

  return {
    detect: (opts) => call('detect', [opts]),
    scan: (agent, onProgress) => call('scan', [agent], onProgress),
    page: (req) => call('page', [req]),
    matchIds: (s, f) => call('matchIds', [s, f]),
    detail: (s, id) => call('detail', [s, id]),
    preview: (s, id) => call('preview', [s, id]),
    plan: (s, ids) => call('plan', [s, ids]),
    matchRules: (s, r) => call('matchRules', [s, r]),
    retentionPlan: (s, r) => call('retentionPlan', [s, r]),
    planFromFile: (s, f) => call('planFromFile', [s, f]),
    execute: (planId, opts, onProgress) => call('execute', [planId, opts ?? {}], onProgress),
    keyInfo: () => call('keyInfo', []),
    keyExport: (p) => call('keyExport', [p]),
    keyStoreSet: (s, p) => call('keyStoreSet', [s, p]),
    backupsList: () => call('backupsList', []),
    backupVerify: (id, p) => call('backupVerify', [id, p]),
    backupRestore: (id, p, dry) => call('backupRestore', [id, p, Boolean(dry)]),
    backupDelete: (id) => call('backupDelete', [id]),
    stopExecution: () => call('stopExecution', []),
    recoveryList: () => call('recoveryList', []),
    recoveryAction: (id, action, passphrase) => call('recoveryAction', [id, action, passphrase]),
    loadSettings: () => call('loadSettings', []),
    saveSettings: (s) => call('saveSettings', [s]),
    close: async () => {
      fail(new Error('engine closed'));
      await worker.terminate();
    },
  };
}
