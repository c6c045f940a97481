// The app's engine before it exists: the demo home and the worker start while
// the first frame is drawn.

import type { EngineApi } from '../engine/api/api.js';

/** Calls wait for the engine that is still starting (demo home, worker). */
export function deferred(p: Promise<EngineApi>): EngineApi {
  type AnyFn = (...a: unknown[]) => Promise<unknown>;
  const call = (k: keyof EngineApi): AnyFn => (...args) => p.then((e) => (e[k] as unknown as AnyFn)(...args));
  return {
    detect: call('detect'),
    scan: call('scan'),
    page: call('page'),
    matchIds: call('matchIds'),
    matchRules: call('matchRules'),
    retentionPlan: call('retentionPlan'),
    planFromFile: call('planFromFile'),
    detail: call('detail'),
    preview: call('preview'),
    plan: call('plan'),
    execute: call('execute'),
    stopExecution: call('stopExecution'),
    keyInfo: call('keyInfo'),
    keyExport: call('keyExport'),
    keyStoreSet: call('keyStoreSet'),
    backupsList: call('backupsList'),
    backupVerify: call('backupVerify'),
    backupRestore: call('backupRestore'),
    backupDelete: call('backupDelete'),
    recoveryList: call('recoveryList'),
    recoveryAction: call('recoveryAction'),
    loadSettings: call('loadSettings'),
    saveSettings: call('saveSettings'),
    close: call('close'),
  } as EngineApi;
}
