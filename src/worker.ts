// Worker-thread host of the engine (a composition root, like cli.ts): it
// builds the Engine with the real adapters and the backup service, and
// answers EngineApi calls.

import { getPriority, setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { ADAPTERS } from './adapters/registry.js';
import { defaultHostContext } from './engine/core/adapter.js';
import { ENGINE_METHODS } from './engine/core/engine-methods.js';
import { Engine } from './engine/api/engine.js';
import { backupService } from './backup/service.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './engine/api/worker-client.js';
import { hostContextFromEnv } from './engine/host/host-context.js';
import type { ScanSummary } from './engine/core/model.js';
import { isWrongPassphrase } from './engine/core/passphrase-rule.js';
import { ConfigError } from './engine/core/config-error.js';
import { selectionTransfer } from './engine/core/selection.js';
import { LANGUAGE_ENV, parseLanguage, setLanguage } from './engine/i18n/index.js';

/** The engine thread's nice value once the first rows are on screen (0 = the UI's). */
const WORKER_NICE = 5;

const init = workerData as WorkerInit;
// The app resolved the language (--lang, Settings, locale); engine texts the UI shows follow it.
setLanguage(parseLanguage(init.env[LANGUAGE_ENV]) ?? 'en');
// Summaries cross to the UI with the selection index as typed arrays, moved rather than copied.
const ctx = hostContextFromEnv(init.env) ?? defaultHostContext();
// The backup service's key-ring child runs with the engine's environment, not the worker's.
const collectGarbage = fullCollection();
const engine = new Engine(ADAPTERS, ctx, { ...init.opts, compactSelection: true }, backupService(ctx.env), { collectGarbage });
const port = parentPort!;

port.on('message', async (m: WorkerRequest) => {
  const reply = (r: WorkerReply): void => port.postMessage(r, transferables(r));
  try {
    // Only the EngineApi's own methods answer (not the Engine's other public ones).
    const spec = Object.hasOwn(ENGINE_METHODS, m.method) ? ENGINE_METHODS[m.method] : undefined;
    const fn = (engine as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[m.method];
    if (!spec || typeof fn !== 'function') throw new Error(`unknown engine call ${String(m.method)}`);
    const args = [...m.args];
    // The progress callback goes at its own index, after any optional arguments the caller left out.
    if (spec.progress !== null) {
      args.length = spec.progress;
      args.push((progress: unknown) => reply({ id: m.id, progress } as WorkerReply));
    }
    const result = await fn.apply(engine, args);
    // The first rows are out with this answer (a page, or a scan's): from now on the UI thread goes first.
    if (m.method === 'page' || m.method === 'scan') lowerPriority();
    reply({ id: m.id, ok: true, result });
    // The summary just sent (its selection index, the build's temporaries) is garbage the idle worker would keep.
    if (m.method === 'scan') setImmediate(collectGarbage);
  } catch (e) {
    const err = e as Error & { request?: boolean };
    const kind = isWrongPassphrase(err) ? 'passphrase' : err.request ? 'request' : err instanceof ConfigError ? 'config' : 'internal';
    reply({ id: m.id, ok: false, error: err.message, kind });
  }
});

/**
 * This thread only (Linux keeps a nice value per thread), once and for good (only root may
 * raise it again): when the machine is busy the UI thread wins the CPU over the scan, so keys
 * stay answered (tui-100k at load 9–17: worst key 81–167 → 38–73 ms); an idle machine runs
 * both at full speed. Not before the first rows are out (the first page answered, or a scan):
 * at nice 5 from the start, under load 20, the first 100 sessions took 290 ms instead of 30.
 * Relative to the thread's own value: under `nice -n 10 cleanerx` (a shared server's habit) the
 * worker goes to 15, not to 5, which a user may not even set. Refused (a hardened host): the
 * thread runs as it is.
 */
let lowered = false;
function lowerPriority(): void {
  if (lowered) return;
  lowered = true;
  try {
    setPriority(0, Math.min(19, getPriority(0) + WORKER_NICE));
  } catch {}
}

/** The selection index's buffers in a reply (a scan's summary, a provisional one, an execute's rescan). */
function transferables(r: WorkerReply): ArrayBuffer[] {
  const v = (
    'progress' in r
      ? (r.progress as { provisional?: ScanSummary }).provisional
      : 'result' in r
        ? (r.result as ScanSummary | { summary?: ScanSummary } | null)
        : null
  ) as (Partial<ScanSummary> & { summary?: ScanSummary }) | null | undefined;
  if (!v || typeof v !== 'object') return [];
  return selectionTransfer(v.selectionIndex ?? v.summary?.selectionIndex);
}

/**
 * V8's full collection as a function (a worker cannot be started with
 * --expose-gc). Only the one context made here sees it; the flag is set back.
 */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
