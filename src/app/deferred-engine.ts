// The app's engine before it exists: the demo home and the worker start while
// the first frame is drawn.

import type { EngineApi } from '../engine/api/api.js';
import { ENGINE_METHOD_NAMES } from '../engine/core/engine-methods.js';

/** Calls wait for the engine that is still starting (demo home, worker). */
export function deferred(p: Promise<EngineApi>): EngineApi {
  type AnyFn = (...a: unknown[]) => Promise<unknown>;
  const call =
    (k: keyof EngineApi): AnyFn =>
    (...args) =>
      p.then((e) => (e[k] as unknown as AnyFn)(...args));
  return Object.fromEntries(ENGINE_METHOD_NAMES.map((k) => [k, call(k)])) as unknown as EngineApi;
}
