// Detection: home resolution order, executable discovery, version, state.

import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { detectOne, findExecutable, resolveHome, VERSION_PROBE_ENV } from '../../src/engine/host/detect.js';
import { Engine } from '../../src/engine/api/engine.js';
import { ConfigError } from '../../src/engine/core/config-error.js';
import { DEFAULT_SETTINGS } from '../../src/engine/host/settings.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { readdirSync } from 'node:fs';

let t: TempEnv;
afterEach(() => t?.cleanup());

function ctxWith(env: Record<string, string | undefined>): HostContext {
  return { ...t.ctx, env: { ...t.env, ...env } };
}

function writeScript(dir: string, name: string, body: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, mode);
  return p;
}

describe('home resolution', () => {
  it('prefers the override, then the env var, then the default', () => {
    t = makeTempEnv();
    const home = t.env.HOME!;
    const ctx = ctxWith({ PI_CODING_AGENT_DIR: '/from/env' });
    expect(resolveHome(piAdapter, ctx, '/from/override')).toEqual({ home: '/from/override', source: 'override' });
    expect(resolveHome(piAdapter, ctx, undefined)).toEqual({ home: '/from/env', source: 'env' });
    expect(resolveHome(piAdapter, ctx, '')).toEqual({ home: '/from/env', source: 'env' });
    const bare = ctxWith({ PI_CODING_AGENT_DIR: undefined });
    expect(resolveHome(piAdapter, bare, undefined)).toEqual({ home: join(home, '.pi', 'agent'), source: 'default' });
  });

  it('expands a tilde in the env var against the context HOME', () => {
    t = makeTempEnv();
    expect(resolveHome(piAdapter, ctxWith({ PI_CODING_AGENT_DIR: '~/custom-pi' }), undefined)).toEqual({
      home: join(t.env.HOME!, 'custom-pi'),
      source: 'env',
    });
  });

  it("rejects a relative override with the engine's ConfigError (the CLI shows it as a usage error)", () => {
    t = makeTempEnv();
    expect(() => resolveHome(piAdapter, t.ctx, 'relative/pi')).toThrow(ConfigError);
    expect(() => resolveHome(piAdapter, t.ctx, './pi')).toThrow(/absolute path/);
  });

  it('ignores a relative env var with a warning and uses the default', async () => {
    t = makeTempEnv();
    const inst = await detectOne(piAdapter, ctxWith({ PI_CODING_AGENT_DIR: 'rel/pi' }), undefined, false);
    expect(inst.homeSource).toBe('default');
    expect(inst.home).toBe(join(t.env.HOME!, '.pi', 'agent'));
    expect(inst.warnings.join(' ')).toMatch(/PI_CODING_AGENT_DIR is relative/);
  });

  it('the engine applies a saved override', async () => {
    t = makeTempEnv();
    const engine = new Engine(ADAPTERS, t.ctx);
    const override = join(t.root, 'pi-elsewhere');
    await engine.saveSettings({
      ...DEFAULT_SETTINGS,
      targetAgent: null,
      homeOverrides: { pi: override },
      retention: { backupDays: 30, logDays: 7, tempHours: 24 },
    });
    const pi = (await engine.detect()).find((i) => i.agent === 'pi')!;
    expect(pi.home).toBe(override);
    expect(pi.homeSource).toBe('override');
  });
});

describe('executable discovery and state', () => {
  it('finds an executable on PATH and reads its --version: installed', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    const exe = writeScript(bin, 'pi', "echo 'pi 0.73.1'");
    const ctx = ctxWith({ PATH: `${bin}:/usr/bin:/bin` });
    const inst = await detectOne(piAdapter, ctx, undefined, true);
    expect(inst.state).toBe('installed');
    expect(inst.executable).toBe(exe);
    expect(inst.version).toBe('0.73.1');
    // Without asking for versions, the program is not run.
    expect((await detectOne(piAdapter, ctx, undefined, false)).version).toBeNull();
  });

  it('remembers a version per executable identity in the state dir, and asks again after an upgrade', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    const runs = join(t.root, 'runs');
    writeScript(bin, 'pi', `echo run >> ${runs}; echo 'pi 0.73.1'`);
    const ctx = ctxWith({ PATH: `${bin}:/usr/bin:/bin` });
    const state = join(t.root, 'state');
    const count = (): number => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;
    expect((await detectOne(piAdapter, ctx, undefined, true, state)).version).toBe('0.73.1');
    expect((await detectOne(piAdapter, ctx, undefined, true, state)).version).toBe('0.73.1');
    expect(count()).toBe(1);
    expect(statSync(join(state, 'versions.json')).mode & 0o777).toBe(0o600);
    // An upgrade rewrites the executable: its identity changes, so it is asked again.
    writeScript(bin, 'pi', `echo run >> ${runs}; echo 'pi 0.74.0 (new build)'`);
    expect((await detectOne(piAdapter, ctx, undefined, true, state)).version).toBe('0.74.0 (new build)');
    expect(count()).toBe(2);
    // A malformed cache is ignored, never trusted.
    writeFileSync(join(state, 'versions.json'), '{"pi\u0000x": 1');
    expect((await detectOne(piAdapter, ctx, undefined, true, state)).version).toBe('0.74.0 (new build)');
    expect(count()).toBe(3);
  });

  it('uses a remembered version in read-only mode but writes none', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    const runs = join(t.root, 'runs');
    writeScript(bin, 'pi', `echo run >> ${runs}; echo 'pi 0.73.1'`);
    const ctx = ctxWith({ PATH: `${bin}:/usr/bin:/bin` });
    const state = join(t.root, 'state');
    const count = (): number => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0);
    // Nothing remembered yet: a read-only run asks, and leaves no cache behind.
    expect((await detectOne(piAdapter, ctx, undefined, true, state, false)).version).toBe('0.73.1');
    expect(count()).toBe(1);
    expect(existsSync(join(state, 'versions.json'))).toBe(false);
    // A normal run remembers it; a read-only run then uses it without starting the program, and leaves the file as it was.
    expect((await detectOne(piAdapter, ctx, undefined, true, state)).version).toBe('0.73.1');
    expect(count()).toBe(2);
    const cached = readFileSync(join(state, 'versions.json'));
    expect((await detectOne(piAdapter, ctx, undefined, true, state, false)).version).toBe('0.73.1');
    expect(count()).toBe(2);
    expect(readFileSync(join(state, 'versions.json')).equals(cached)).toBe(true);
  });

  it('reports installed even when --version fails', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    writeScript(bin, 'pi', 'echo broken >&2; exit 3');
    const inst = await detectOne(piAdapter, ctxWith({ PATH: bin }), undefined, true);
    expect(inst.state).toBe('installed');
    expect(inst.version).toBeNull();
  });

  it('keeps only a printable first line of the version output', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    writeScript(bin, 'pi', "printf 'pi 1.2.3\\a\\nsecond line\\n'");
    const inst = await detectOne(piAdapter, ctxWith({ PATH: bin }), undefined, true);
    expect(inst.version).toBe('1.2.3');
  });

  it('looks in ~/.local/bin under the context HOME', async () => {
    t = makeTempEnv();
    const exe = writeScript(join(t.env.HOME!, '.local', 'bin'), 'pi', "echo 'pi 0.73.1'");
    expect(await findExecutable(piAdapter, t.ctx, '/nowhere')).toBe(exe);
  });

  it('looks in nvm-managed node versions under the context HOME', async () => {
    t = makeTempEnv();
    const nvm = writeScript(join(t.env.HOME!, '.nvm', 'versions', 'node', 'v20.19.0', 'bin'), 'pi', "echo 'pi 0.73.1'");
    expect(await findExecutable(piAdapter, t.ctx, '/nowhere')).toBe(nvm);
  });

  it('skips a non-executable file and a directory named like the program', async () => {
    t = makeTempEnv();
    const a = join(t.root, 'a');
    const b = join(t.root, 'b');
    writeScript(a, 'pi', "echo 'pi 9'", 0o644);
    mkdirSync(join(b, 'pi'), { recursive: true });
    const ctx = ctxWith({ PATH: `${a}:${b}` });
    // Root can execute nothing without an x bit either: access(X_OK) fails for 0644.
    expect(await findExecutable(piAdapter, ctx, '/nowhere')).toBeNull();
    const inst = await detectOne(piAdapter, ctx, undefined, false);
    expect(inst.state).toBe('notFound');
  });

  it('dataOnly: a pi home with sessions but no program', async () => {
    t = makeTempEnv();
    mkdirSync(join(t.env.PI_CODING_AGENT_DIR!, 'sessions'), { recursive: true });
    const inst = await detectOne(piAdapter, t.ctx, undefined, true);
    expect(inst.state).toBe('dataOnly');
    expect(inst.executable).toBeNull();
    expect(inst.version).toBeNull();
    expect(inst.homeSource).toBe('env');
    expect(inst.home).toBe(t.env.PI_CODING_AGENT_DIR);
  });

  it('dataOnly also from settings.json alone', async () => {
    t = makeTempEnv();
    mkdirSync(t.env.PI_CODING_AGENT_DIR!, { recursive: true });
    writeFileSync(join(t.env.PI_CODING_AGENT_DIR!, 'settings.json'), '{}');
    expect((await detectOne(piAdapter, t.ctx, undefined, false)).state).toBe('dataOnly');
  });

  it('notFound: neither data nor program', async () => {
    t = makeTempEnv();
    const inst = await detectOne(piAdapter, t.ctx, undefined, true);
    expect(inst.state).toBe('notFound');
    expect(inst.executable).toBeNull();
  });

  it('an empty or missing agent home scans to an empty inventory', async () => {
    t = makeTempEnv();
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    expect(sum.installation.state).toBe('notFound');
    expect(sum.sessionCount).toBe(0);
    expect(sum.items).toEqual([]);
  });
});

describe('version probes', () => {
  const pinnedPi = fileURLToPath(new URL('../../node_modules/.bin/pi', import.meta.url));

  it("reads the pinned pi's version, which pi prints on stderr", async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(pinnedPi, join(bin, 'pi'));
    // pi's launcher runs `env node`: the node running the tests, first on PATH.
    const ctx = ctxWith({ PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` });
    const inst = await detectOne(piAdapter, ctx, undefined, true);
    expect(inst.executable).toBe(join(bin, 'pi'));
    expect(inst.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('takes stdout before stderr, and nothing from a program that fails', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    writeScript(bin, 'pi', "echo 'pi 1.0.0'; echo 'pi 9.9.9' >&2");
    expect((await detectOne(piAdapter, ctxWith({ PATH: bin }), undefined, true)).version).toBe('1.0.0');
    writeScript(bin, 'pi', "echo 'pi 2.0.0' >&2; exit 1");
    expect((await detectOne(piAdapter, ctxWith({ PATH: bin }), undefined, true)).version).toBeNull();
  });

  it('bounds a probe that floods its output or never exits', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    // 5 MB of NULs on stderr before the version: only the first 64 KiB are kept, and they are no version.
    writeScript(bin, 'pi', "head -c 5000000 /dev/zero >&2; echo 'pi 3.0.0' >&2");
    expect((await detectOne(piAdapter, ctxWith({ PATH: `${bin}:/usr/bin:/bin` }), undefined, true)).version).toBeNull();
    writeScript(bin, 'pi', 'exec sleep 30');
    // The 10 s limit shortened to 1 s (test mode): without a limit this waits for the 30 s sleep and times out.
    const started = Date.now();
    const slow = ctxWith({ PATH: `${bin}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1', CLEANERX_TEST_PROBE_TIMEOUT_MS: '1000' });
    expect((await detectOne(piAdapter, slow, undefined, true)).version).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('marks the probe in its environment, so writer detection can tell it from a working agent', async () => {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    writeScript(bin, 'pi', `echo "pi \${${VERSION_PROBE_ENV}}.0.0"`);
    expect((await detectOne(piAdapter, ctxWith({ PATH: bin }), undefined, true)).version).toBe('1.0.0');
  });
  // Codex 0.171 makes $CODEX_HOME/tmp/arg0-linux/codex-arg0*/ on every start, --version included: the stand-in does the same.
  const ARG0 = 'mkdir -p "$CODEX_HOME/tmp/arg0-linux/codex-arg0x" && echo "$CODEX_HOME" >> "$PROBED"';
  function codexProbe(body: string): { ctx: HostContext; home: string; tmp: string; probed: string } {
    t = makeTempEnv();
    const bin = join(t.root, 'bin');
    writeScript(bin, 'codex', `${ARG0}\n${body}`);
    const home = t.env.CODEX_HOME!;
    mkdirSync(join(home, 'sessions'), { recursive: true });
    writeFileSync(join(home, 'config.toml'), 'model = "x"\n');
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const probed = join(t.root, 'probed');
    return {
      ctx: ctxWith({ PATH: `${bin}:/usr/bin:/bin`, TMPDIR: tmp, PROBED: probed, CLEANERX_TEST_MODE: '1', CLEANERX_TEST_PROBE_TIMEOUT_MS: '1000' }),
      home,
      tmp,
      probed,
    };
  }

  it("asks Codex its version in a private empty home, so the user's Codex home is not written, and removes that home after", async () => {
    const p = codexProbe("echo 'codex-cli 0.171.0'");
    const before = hashTree(p.home);
    expect((await detectOne(codexAdapter, p.ctx, undefined, true)).version).toBe('0.171.0');
    expect(treeDiff(before, hashTree(p.home))).toEqual([]);
    const seen = readFileSync(p.probed, 'utf8').trim();
    expect(seen.startsWith(join(p.tmp, 'cleanerx-probe-'))).toBe(true);
    expect(readdirSync(p.tmp)).toEqual([]);
  });

  it('removes the private home of a probe it had to kill, once the probe is gone', async () => {
    const p = codexProbe('exec sleep 30');
    const before = hashTree(p.home);
    expect((await detectOne(codexAdapter, p.ctx, undefined, true)).version).toBeNull();
    expect(treeDiff(before, hashTree(p.home))).toEqual([]);
    // The kill is asynchronous: the dir goes when the probe's exit is seen.
    for (let i = 0; i < 100 && readdirSync(p.tmp).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(p.tmp)).toEqual([]);
  });
});
