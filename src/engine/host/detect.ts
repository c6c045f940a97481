// Detection: where each agent keeps its data, whether its program is
// installed, and its version. Bounded: a fixed list of directories, a 10 s
// timeout on `--version`, nothing recursive.

import { cachedVersion } from './version-cache.js';
import type { ChildProcess } from 'node:child_process';
import { constants, promises as fsp } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AgentAdapter, HomeResolution, HostContext } from '../core/adapter.js';
import { localized } from '../i18n/localized.js';
import type { Installation } from '../core/model.js';
import { ConfigError } from '../core/config-error.js';
import { homeOf } from './own-dirs.js';
import { spawnTracked } from './own-children.js';
import { makeProbeHome, removeProbeHome } from './probe-home.js';

const VERSION_TIMEOUT_MS = 10_000;
const MAX_NVM_DIRS = 8;
const MAX_VERSION_OUTPUT = 64 * 1024;

/** The probe's time limit; tests (CLEANERX_TEST_MODE=1) may shorten it, so a probe that never exits costs them a second, not ten. */
function versionTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const v = Number(env.CLEANERX_TEST_PROBE_TIMEOUT_MS);
  return env.CLEANERX_TEST_MODE === '1' && v > 0 ? v : VERSION_TIMEOUT_MS;
}

export function resolveHome(adapter: AgentAdapter, ctx: HostContext, override: string | undefined): HomeResolution {
  if (override !== undefined && override !== '') {
    if (!isAbsolute(override)) {
      throw new ConfigError(`The ${adapter.kind} home override must be an absolute path (got "${override}").`);
    }
    return { home: override, source: 'override' };
  }
  return adapter.resolveHome(ctx);
}

/** PATH first, then the usual per-user package-manager locations. */
async function binDirs(adapter: AgentAdapter, ctx: HostContext, home: string): Promise<string[]> {
  const h = homeOf(ctx.env);
  const dirs = (ctx.env.PATH ?? '').split(delimiter).filter((d) => d && isAbsolute(d));
  dirs.push('/usr/local/bin', '/usr/bin');
  if (ctx.platform === 'darwin') dirs.push('/opt/homebrew/bin');
  dirs.push(
    join(h, '.local/bin'),
    join(h, '.local/share/pnpm'),
    join(h, '.npm-global/bin'),
    join(h, '.volta/bin'),
    join(h, '.asdf/shims'),
    join(h, '.bun/bin'),
    join(h, 'Library/pnpm'),
  );
  dirs.push(...(await nvmBinDirs(h)));
  dirs.push(...adapter.extraBinDirs(ctx, home));
  return [...new Set(dirs)];
}

async function nvmBinDirs(home: string): Promise<string[]> {
  const root = join(home, '.nvm/versions/node');
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  const withTime = await Promise.all(
    names.slice(0, 64).map(async (n) => ({ dir: join(root, n, 'bin'), t: (await fsp.stat(join(root, n)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  return withTime
    .sort((a, b) => b.t - a.t)
    .slice(0, MAX_NVM_DIRS)
    .map((x) => x.dir);
}

export async function findExecutable(adapter: AgentAdapter, ctx: HostContext, home: string): Promise<string | null> {
  for (const dir of await binDirs(adapter, ctx, home)) {
    for (const name of adapter.binaryNames) {
      const p = join(dir, name);
      try {
        const st = await fsp.stat(p);
        if (!st.isFile()) continue;
        await fsp.access(p, constants.X_OK);
        return p;
      } catch {
        // not here
      }
    }
  }
  return null;
}

/** Set by `--demo` to the pinned agents not installed beside cleanerx (`agent=package,…`), so detection says why. */
export const DEMO_MISSING_ENV = 'CLEANERX_DEMO_MISSING';

/**
 * Set in the environment of every `--version` probe, so writer detection (in
 * this or another cleanerx process) can tell the probe from a working agent.
 */
export const VERSION_PROBE_ENV = 'CLEANERX_VERSION_PROBE';

/**
 * `<exe> --version`: stdout, else stderr (pi prints its version there), each
 * read up to 64 KiB; killed after 10 s; no answer when it fails or says
 * nothing. An agent whose start writes into its home (versionProbeHomeVar)
 * gets a private empty one instead, removed once the probe has exited; when
 * none can be made the probe is not run.
 */
export function readVersion(adapter: AgentAdapter, exe: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  const probeHome = adapter.versionProbeHomeVar ? makeProbeHome(env) : undefined;
  if (probeHome === null) return Promise.resolve(null);
  const done = (): void => {
    if (probeHome) removeProbeHome(probeHome);
  };
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawnTracked(exe, ['--version'], {
        env: { ...(env as NodeJS.ProcessEnv), [VERSION_PROBE_ENV]: '1', ...(probeHome ? { [adapter.versionProbeHomeVar!]: probeHome } : {}) },
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch {
      done();
      return resolve(null);
    }
    // The private home goes once the probe is gone, not when its answer is late.
    child.once('exit', done);
    child.once('error', done);
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const sizes = { stdout: 0, stderr: 0 };
    const collect = (name: 'stdout' | 'stderr') => (b: Buffer) => {
      if (sizes[name] >= MAX_VERSION_OUTPUT) return;
      out[name].push(b.subarray(0, MAX_VERSION_OUTPUT - sizes[name]));
      sizes[name] += b.length;
    };
    child.stdout!.on('data', collect('stdout'));
    child.stderr!.on('data', collect('stderr'));
    let settled = false;
    const finish = (v: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(null);
    }, versionTimeoutMs(env));
    child.on('error', () => finish(null));
    child.on('close', (code, signal) => {
      if (code !== 0 || signal) return finish(null);
      const clean = (b: Buffer[]): string =>
        adapter
          .cleanVersion(Buffer.concat(b).toString('utf8'))
          .replace(/[^\x20-\x7e]/g, '')
          .slice(0, 64);
      finish(clean(out.stdout) || clean(out.stderr) || null);
    });
  });
}

export async function detectOne(
  adapter: AgentAdapter,
  ctx: HostContext,
  override: string | undefined,
  withVersion: boolean,
  /** cleanerx's state dir: where versions are remembered per executable identity. */
  stateDir?: string,
  /** False in read-only mode: a remembered version is used, a new answer is not written. */
  rememberVersion = true,
): Promise<Installation> {
  const warnings: string[] = [];
  const { home, source } = resolveHome(adapter, ctx, override);
  const envValue = ctx.env[adapter.homeEnvVar];
  if (source === 'default' && envValue && envValue.trim() && !isAbsolute(envValue.trim()) && !envValue.trim().startsWith('~')) {
    warnings.push(`${adapter.homeEnvVar} is relative ("${envValue}") and was ignored; using ${home}.`);
  }
  const [executable, hasData] = await Promise.all([findExecutable(adapter, ctx, home), adapter.hasData(home).catch(() => false)]);
  if (!executable) {
    const pkg = (ctx.env[DEMO_MISSING_ENV] ?? '')
      .split(',')
      .find((e) => e.startsWith(`${adapter.kind}=`))
      ?.slice(adapter.kind.length + 1);
    if (pkg)
      warnings.push(
        `The demo runs the ${adapter.kind} pinned beside cleanerx, but ${pkg} is not installed there; run npm ci in cleanerx's checkout to see it work.`,
      );
  }
  const version =
    executable && withVersion
      ? ((await adapter.installedVersion?.(executable).catch(() => null)) ??
        (await cachedVersion(stateDir, adapter.kind, executable, () => readVersion(adapter, executable, ctx.env), rememberVersion)))
      : null;
  return {
    agent: adapter.kind,
    displayName: adapter.displayName,
    memoryNotice: localized(adapter.memoryNotice),
    labels: adapter.labels,
    state: executable ? 'installed' : hasData ? 'dataOnly' : 'notFound',
    home,
    homeSource: source,
    executable,
    version,
    warnings,
  };
}
