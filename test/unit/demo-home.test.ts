// The demo home's owner file and the sweep of homes whose cleanerx died, and
// the pinned agents the demo finds beside its own install.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoHome } from '../../src/demo/demo-home.js';
import { OWNER_FILE, processStart, releaseOwner, sweepStaleDemoHomes } from '../../src/demo/demo-owner.js';
import { demoMissingValue, findDemoTools } from '../../src/demo/demo-tools.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { DEMO_MISSING_ENV, detectOne } from '../../src/engine/host/detect.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

/** A pid that is certainly dead: a child that has exited and been reaped. */
function deadPid(): number {
  return spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim() as unknown as number;
}

function fakeHome(tmp: string, name: string, owner: object | null): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'home', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'home', 'deep', 'f'), 'x');
  if (owner) writeFileSync(join(dir, OWNER_FILE), JSON.stringify(owner));
  return dir;
}

describe('demo home ownership', () => {
  it('a new demo home is marked with our pid and start time, inside the temp dir given, with its own TMPDIR', async () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    let seen: string | null = null;
    const demo = await createDemoHome(
      Date.now(),
      (root) => {
        seen = root;
        // Called before the fixtures are written: a signal now still knows what to remove.
        expect(existsSync(join(root, 'home'))).toBe(false);
      },
      tmp,
    );
    expect(seen).toBe(demo.root);
    expect(demo.root.startsWith(join(tmp, 'cleanerx-demo-'))).toBe(true);
    expect(JSON.parse(readFileSync(join(demo.root, OWNER_FILE), 'utf8'))).toEqual({ pid: process.pid, start: processStart(process.pid) });
    expect(demo.env.TMPDIR).toBe(join(demo.root, 'tmp'));
    // Ours and alive: the sweep leaves it.
    expect(sweepStaleDemoHomes(tmp)).toEqual([]);
    expect(existsSync(demo.root)).toBe(true);
  });

  it('sweeps homes whose owner is dead or is another process now holding the pid, and nothing else', () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const dead = fakeHome(tmp, 'cleanerx-demo-Dead01', { pid: Number(deadPid()), start: '1' });
    const reused = fakeHome(tmp, 'cleanerx-demo-Reuse1', { pid: process.pid === 1 ? 2 : 1, start: 'not-its-start' });
    const alive = fakeHome(tmp, 'cleanerx-demo-Alive1', { pid: process.pid, start: processStart(process.pid) });
    const unmarked = fakeHome(tmp, 'cleanerx-demo-NoMark', null);
    const otherName = fakeHome(tmp, 'someone-else-Dead02', { pid: Number(deadPid()), start: '1' });
    const garbled = fakeHome(tmp, 'cleanerx-demo-Garble', null);
    writeFileSync(join(garbled, OWNER_FILE), '{"pid": "1; rm -rf /"');
    // A marker that is a link (symbolic or hard) is not our marker.
    const linked = fakeHome(tmp, 'cleanerx-demo-Linked', null);
    writeFileSync(join(t.root, 'marker'), JSON.stringify({ pid: Number(deadPid()), start: '1' }));
    symlinkSync(join(t.root, 'marker'), join(linked, OWNER_FILE));
    const hard = fakeHome(tmp, 'cleanerx-demo-Hard01', null);
    linkSync(join(t.root, 'marker'), join(hard, OWNER_FILE));
    // A link named like a demo home, pointing at a dead-owner home elsewhere: never followed.
    const outside = fakeHome(t.root, 'cleanerx-demo-Outsid', { pid: Number(deadPid()), start: '1' });
    symlinkSync(outside, join(tmp, 'cleanerx-demo-SymLnk'));

    expect(sweepStaleDemoHomes(tmp).sort()).toEqual([dead, reused].sort());
    expect(readdirSync(tmp).sort()).toEqual([
      'cleanerx-demo-Alive1',
      'cleanerx-demo-Garble',
      'cleanerx-demo-Hard01',
      'cleanerx-demo-Linked',
      'cleanerx-demo-NoMark',
      'cleanerx-demo-SymLnk',
      'someone-else-Dead02',
    ]);
    for (const d of [alive, unmarked, otherName, garbled, linked, hard, outside]) expect(existsSync(join(d, 'home', 'deep', 'f')), d).toBe(true);
  });

  it('a kept home gives up its owner file, so no later sweep removes it', () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const kept = fakeHome(tmp, 'cleanerx-demo-Kept01', { pid: Number(deadPid()), start: '1' });
    releaseOwner(kept);
    expect(sweepStaleDemoHomes(tmp)).toEqual([]);
    expect(existsSync(kept)).toBe(true);
  });
});

describe('every exit path removes the home', () => {
  const LIFETIME = new URL('../../dist/demo/demo-lifetime.js', import.meta.url).href;
  it.each([
    ['an uncaught error', "setTimeout(() => { throw new Error('boom'); }, 10);", 1],
    ['process.exit', 'setTimeout(() => process.exit(3), 10);', 3],
    ['SIGTERM', "setTimeout(() => process.kill(process.pid, 'SIGTERM'), 10); setInterval(() => {}, 1000);", 143],
    ['SIGHUP', "setTimeout(() => process.kill(process.pid, 'SIGHUP'), 10); setInterval(() => {}, 1000);", 129],
    ['SIGQUIT', "setTimeout(() => process.kill(process.pid, 'SIGQUIT'), 10); setInterval(() => {}, 1000);", 131],
  ])('%s', (_name, then, code) => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const script = `import { DemoLifetime } from ${JSON.stringify(LIFETIME)}; new DemoLifetime(false).create(); ${then}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...t.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(code);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('--keep', () => {
  it('keeps the home on exit, says where, and gives up the owner file so no sweep takes it', () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const lifetime = new URL('../../dist/demo/demo-lifetime.js', import.meta.url).href;
    const script = `import { DemoLifetime } from ${JSON.stringify(lifetime)}; new DemoLifetime(true).create(); setTimeout(() => process.kill(process.pid, 'SIGTERM'), 10); setInterval(() => {}, 1000);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...t.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 20_000 });
    const [kept] = readdirSync(tmp);
    expect(kept).toMatch(/^cleanerx-demo-/);
    expect(r.stdout).toBe(`Demo home kept at ${join(tmp, kept!)}\n`);
    expect(existsSync(join(tmp, kept!, OWNER_FILE))).toBe(false);
    expect(sweepStaleDemoHomes(tmp)).toEqual([]);
  });
});

describe('the pinned agents beside the install', () => {
  it('finds codex and pi in cleanerx\u2019s own node_modules/.bin, and the node that runs cleanerx', () => {
    const tools = findDemoTools();
    expect(tools.missing).toEqual([]);
    expect(tools.dirs[0]).toMatch(/node_modules\/\.bin$/);
    expect(tools.dirs).toContain(process.execPath.replace(/\/[^/]+$/, ''));
  });

  it('says which are missing when cleanerx is installed without them, and detection shows why', async () => {
    t = makeTempEnv();
    const tools = findDemoTools(`file://${join(t.root, 'elsewhere', 'cli.js')}`);
    expect(tools).toEqual({
      dirs: [],
      missing: [
        { agent: 'codex', pkg: '@openai/codex' },
        { agent: 'pi', pkg: '@mariozechner/pi-coding-agent' },
      ],
    });
    const ctx = { ...t.ctx, env: { ...t.env, [DEMO_MISSING_ENV]: demoMissingValue(tools) } };
    const inst = await detectOne(piAdapter, ctx, undefined, false);
    expect(inst.warnings).toContain(
      "The demo runs the pi pinned beside cleanerx, but @mariozechner/pi-coding-agent is not installed there; run npm ci in cleanerx's checkout to see it work.",
    );
  });
});
