// The one contract every agent folder implements. The engine only ever sees
// this interface; concrete adapters are handed to it by the composition root
// (src/adapters/registry.ts), so the engine never imports an agent.

import type { AgentKind, Installation, Inventory, Preview, ScanProgress, Writer } from './model.js';

/** Everything outside the process that an adapter may consult. Tests build one. */
export interface HostContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Effective uid, or -1 where the platform has none. */
  uid: number;
  platform: NodeJS.Platform;
  now(): number;
  /** Root of /proc (tests point it at a fake tree). */
  procRoot: string;
}

export interface HomeResolution {
  home: string;
  source: 'override' | 'env' | 'default';
}

export interface AdapterDescriptor {
  kind: AgentKind;
  /** Env var that moves the agent's home, shown in Settings. */
  homeEnvVar: string;
  /** Executable names searched for on PATH and in package-manager dirs. */
  binaryNames: string[];
  /** Extra directories searched for the executable (beyond the shared list). */
  extraBinDirs(ctx: HostContext, home: string): string[];
}

export interface AgentAdapter extends AdapterDescriptor {
  /** Default home (and env var) when there is no override. Never touches disk. */
  resolveHome(ctx: HostContext): HomeResolution;
  /** Cheap check: does the home hold data this adapter recognizes? */
  hasData(home: string): Promise<boolean>;
  /** Turns `<bin> --version` output into a plain version string. */
  cleanVersion(raw: string): string;
  /** Full inventory of the store. Must not retain transcript bodies. */
  scan(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory>;
  /** Bounded, read-only preview of one item found by a previous scan. */
  preview(inst: Installation, itemPaths: string[], itemId: string): Promise<Preview>;
  /** Present when the agent's items are removed by the path transaction. */
  fileRoute?: FileRoute;
}

export interface FileRoute {
  /** The fixed roots every removal must lie beneath. */
  roots(inst: Installation): string[];
  /** Processes that write the store now (re-checked right before mutation). */
  writers(inst: Installation, ctx: HostContext): Promise<Writer[]>;
}

export function defaultHostContext(env: NodeJS.ProcessEnv = process.env): HostContext {
  return {
    env: { ...env },
    uid: typeof process.geteuid === 'function' ? process.geteuid() : -1,
    platform: process.platform,
    now: () => Date.now(),
    procRoot: '/proc',
  };
}
