// The bundled dist/ (scripts/bundle.mjs): the bin answers a bare --version
// without loading anything else, and every file a bundle finds beside itself
// by `new URL('./x.js', import.meta.url)` is there, beside the chunk that asks.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const DIST = join(ROOT, 'dist');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let t: TempEnv | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

describe('the bundled build', () => {
  it('--version and -V print the version from the bin alone (no other file of dist/ beside it)', () => {
    t = makeTempEnv();
    const lone = join(t.root, 'cli.js');
    copyFileSync(CLI, lone);
    for (const flag of ['--version', '-V']) {
      const r = spawnSync(process.execPath, [lone, flag], { env: t.env, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
    }
    // Anything else needs the bundle: the lone bin cannot run it.
    expect(spawnSync(process.execPath, [lone, 'scan'], { env: t.env, encoding: 'utf8' }).status).not.toBe(0);
  });

  it('the real bin prints the same version as yargs does for a spelling the fast path leaves alone', () => {
    t = makeTempEnv();
    const fast = spawnSync(process.execPath, [CLI, '--version'], { env: t.env, encoding: 'utf8' });
    const slow = spawnSync(process.execPath, [CLI, '--version', '--lang', 'en'], { env: t.env, encoding: 'utf8' });
    expect(fast.stdout).toBe(`${VERSION}\n`);
    expect(slow.stdout).toBe(fast.stdout);
  });

  it('each process kind has its bundle, and every neighbour a bundled file names exists beside it', () => {
    for (const f of ['cli.js', 'cleanerx.js', 'worker.js', 'keyring-child.js']) expect(existsSync(join(DIST, f)), f).toBe(true);
    const bundled = readdirSync(DIST).filter((f) => f.endsWith('.js'));
    const named = new Set<string>();
    for (const f of bundled) {
      for (const m of readFileSync(join(DIST, f), 'utf8').matchAll(/new URL\(["'](\.\/[^"']+)["'], import\.meta\.url\)/g)) named.add(m[1]!);
    }
    expect([...named].sort()).toEqual(expect.arrayContaining(['./keyring-child.js', './worker.js']));
    for (const n of named) expect(existsSync(join(DIST, n)), n).toBe(true);
  });
});

describe('the JIT budget the bin sets (scripts/bundle.mjs, JIT_BUDGET)', () => {
  // Preloaded: reports every V8 flag the bin sets, on stderr, before passing it on.
  const SPY = `data:text/javascript,${encodeURIComponent(
    "import v8 from 'node:v8';import{syncBuiltinESMExports}from'node:module';const f=v8.setFlagsFromString;v8.setFlagsFromString=(s)=>{process.stderr.write('flag '+s+'\\n');f(s)};syncBuiltinESMExports();",
  )}`;
  const flags = (args: string[], env: Record<string, string> = {}): string[] => {
    const r = spawnSync(process.execPath, ['--import', SPY, CLI, ...args], { env: { ...t!.env, ...env }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stderr.split('\n').filter((l) => l.startsWith('flag '));
  };

  it('is set once before a command runs, on the V8 it was measured on; never for --version, nor with CLEANERX_JIT_DEFAULT=1', async () => {
    t = makeTempEnv();
    const { JIT_BUDGET } = (await import(join(ROOT, 'scripts', 'bundle.mjs'))) as { JIT_BUDGET: { v8Major: number[]; flag: string } };
    const known = JIT_BUDGET.v8Major.includes(Number(process.versions.v8.split('.')[0]));
    expect(flags(['recovery'])).toEqual(known ? [`flag ${JIT_BUDGET.flag}`] : []);
    expect(flags(['--version'])).toEqual([]);
    expect(flags(['recovery'], { CLEANERX_JIT_DEFAULT: '1' })).toEqual([]);
    // The Node this suite runs on is one it was measured on (else the flag would be silently off everywhere).
    expect(known).toBe(true);
  });
});
