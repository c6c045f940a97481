// EngineApi over a worker thread: the UI thread never waits on the disk.
// Calls are matched to replies by id; scan progress arrives as events.

import { Worker } from 'node:worker_threads';
import { ENGINE_METHOD_NAMES, ENGINE_METHODS, type EngineMethod } from '../core/engine-methods.js';
import type { EngineApi, EngineOptions } from './api.js';
import type { BackupProgress, ExecuteProgress, ScanProgress } from '../core/model.js';
import { WrongPassphraseError } from '../core/passphrase-rule.js';
import { RequestError } from '../core/validate.js';

export interface WorkerInit {
  env: Record<string, string | undefined>;
  opts: EngineOptions;
}

export type WorkerRequest = { id: number; method: EngineMethod; args: unknown[] };
export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string; kind: 'request' | 'config' | 'passphrase' | 'internal' }
  | { id: number; progress: ScanProgress | ExecuteProgress | BackupProgress };

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
    else p.reject(m.kind === 'request' ? new RequestError(m.error) : m.kind === 'passphrase' ? new WrongPassphraseError(m.error) : new Error(m.error));
  });
  const fail = (e: Error): void => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('error', (e) => fail(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', (code) => fail(new Error(`engine worker stopped (exit ${code})`)));

  const call = (method: EngineMethod, args: unknown[], progress?: Progress): Promise<never> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress });
      worker.postMessage({ id, method, args } satisfies WorkerRequest);
    });

  const api = {} as Record<EngineMethod, (...a: unknown[]) => Promise<unknown>>;
  for (const m of ENGINE_METHOD_NAMES) {
    const at = ENGINE_METHODS[m].progress;
    // The callback stays here; the arguments before it cross (left-out optional ones as undefined).
    api[m] =
      at === null
        ? (...a) => call(m, a)
        : (...a) =>
            call(
              m,
              Array.from({ length: at }, (_, i) => a[i]),
              a[at] as Progress | undefined,
            );
  }
  return {
    ...(api as unknown as EngineApi),
    close: async () => {
      fail(new Error('engine closed'));
      await worker.terminate();
    },
  };
}
