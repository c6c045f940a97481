// The engine's methods as data: their names and where each takes its
// progress callback. Pure data in core, so the UI's deferred engine can be
// built from it without reaching into engine/api beyond its types.

/**
 * Every EngineApi method (engine/api/api.ts), once: the worker client, the worker host and the
 * app's deferred engine are built from this list. `progress` is the index of
 * the method's progress callback (it streams events across the worker), or
 * null. The checks in api.ts fail the build when the list and the interface part.
 */
export const ENGINE_METHODS = {
  detect: { progress: null },
  scan: { progress: 1 },
  page: { progress: null },
  matchIds: { progress: null },
  detail: { progress: null },
  preview: { progress: null },
  explain: { progress: null },
  sessionCopy: { progress: null },
  plan: { progress: null },
  planGroup: { progress: null },
  latestSnapshot: { progress: null },
  matchRules: { progress: null },
  retentionPlan: { progress: null },
  planFromFile: { progress: null },
  allAgents: { progress: null },
  execute: { progress: 2 },
  keyInfo: { progress: null },
  keyExport: { progress: null },
  keyStoreSet: { progress: null },
  backupsList: { progress: null },
  backupVerify: { progress: 2 },
  backupRestore: { progress: 3 },
  backupDelete: { progress: null },
  stopExecution: { progress: null },
  recoveryList: { progress: null },
  recoveryAction: { progress: null },
  loadSettings: { progress: null },
  saveSettings: { progress: null },
  close: { progress: null },
} as const satisfies Record<string, { progress: number | null }>;

export type EngineMethod = keyof typeof ENGINE_METHODS;

/** The method names, in the list's order. */
export const ENGINE_METHOD_NAMES = Object.keys(ENGINE_METHODS) as EngineMethod[];
