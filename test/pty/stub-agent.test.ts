// A fifth agent is its folder and one registry entry. The stub agent of
// test/fixtures/stub-agent/ (a descriptor and a tiny scan) is copied into a
// temporary copy of the sources with its import and its place in ADAPTERS;
// the copy must build, and its binary must detect the stub, scan it
// (`scan --json`), refuse a relative home variable of it (exit 2), show it in
// the app's agent selector and in `doctor`, and fill its part of the demo
// home from its descriptor (`scan --demo`). The copy's diff against these
// sources is asserted to be exactly that folder and those two lines, so a
// fifth agent that needed any other file changed fails here.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPty } from '../helpers/app-screen.js';
import { ROOT } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'stub-agent', 'stub');
const IMPORT_LINE = "import { stubAdapter } from './stub/index.js';";
const LIST_LINE = '  stubAdapter,';

let copy: string;
let t: TempEnv;
let env: Record<string, string>;

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The registry of the copy: the original with the stub's import after the last agent import and its entry last in ADAPTERS. */
function withStub(registry: string): string {
  const lines = registry.split('\n');
  const lastImport = lines.findLastIndex((l) => /^import \{ \w+Adapter \} from '\.\/\w+\/index\.js';$/.test(l));
  lines.splice(lastImport + 1, 0, IMPORT_LINE);
  const close = lines.findIndex((l, i) => i > lastImport && l === '];');
  lines.splice(close, 0, LIST_LINE);
  return lines.join('\n');
}

function run(args: string[], e: Record<string, string> = env) {
  return spawnSync(process.execPath, [join(copy, 'dist', 'cli.js'), ...args], { env: e, encoding: 'utf8', input: '', timeout: 120_000 });
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'cleanerx-stub-agent-'));
  for (const f of ['src', 'scripts']) cpSync(join(ROOT, f), join(copy, f), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, f), join(copy, f));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  cpSync(FIXTURE, join(copy, 'src', 'adapters', 'stub'), { recursive: true });
  const registry = join(copy, 'src', 'adapters', 'registry.ts');
  writeFileSync(registry, withStub(readFileSync(registry, 'utf8')));
  const built = spawnSync(process.execPath, [join(copy, 'scripts', 'build.mjs')], { cwd: copy, encoding: 'utf8', timeout: 400_000 });
  expect(built.status, built.stdout + built.stderr).toBe(0);

  t = makeTempEnv();
  const home = join(t.env.HOME!, '.stub');
  env = { ...t.env, STUB_AGENT_HOME: home, PATH: '/usr/bin:/bin' };
  mkdirSync(join(home, 'sessions'), { recursive: true });
  writeFileSync(join(home, 'sessions', 'alpha.txt'), 'Stub session alpha\nbody\n');
  writeFileSync(join(home, 'sessions', 'beta.txt'), 'Stub session beta\n');
}, 420_000);

afterAll(() => {
  t?.cleanup();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('a fifth agent: its folder and one registry entry', () => {
  it('changes nothing else in the sources', () => {
    const orig = join(ROOT, 'src');
    const mine = join(copy, 'src');
    const changed = files(mine).filter((f) => {
      try {
        return !readFileSync(join(orig, f)).equals(readFileSync(join(mine, f)));
      } catch {
        return true;
      }
    });
    expect(changed).toEqual(['adapters/registry.ts', ...files(FIXTURE).map((f) => `adapters/stub/${f}`)]);
    expect(files(orig).filter((f) => !files(mine).includes(f))).toEqual([]);
    const before = readFileSync(join(orig, 'adapters', 'registry.ts'), 'utf8').split('\n');
    const after = readFileSync(join(mine, 'adapters', 'registry.ts'), 'utf8').split('\n');
    expect(after.filter((l) => !before.includes(l))).toEqual([IMPORT_LINE, LIST_LINE]);
    expect(after.length).toBe(before.length + 2);
  });

  it('detects and scans it: scan --json lists the stub with its sessions, in registry order', () => {
    const all = run(['scan', '--json']);
    expect(all.status, all.stderr).toBe(0);
    const report = JSON.parse(all.stdout);
    const agents = report.agents.map((a: { agent: string }) => a.agent);
    expect(agents.at(-1)).toBe('stub');
    const stub = report.agents.find((a: { agent: string }) => a.agent === 'stub');
    expect(stub.state).toBe('dataOnly');
    expect(stub.home).toBe(env.STUB_AGENT_HOME);
    expect(stub.sessions.map((s: { title: string }) => s.title).sort()).toEqual(['Stub session alpha', 'Stub session beta']);
    const one = run(['scan', '--agent', 'stub', '--json']);
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).agents.map((a: { agent: string }) => a.agent)).toEqual(['stub']);
  });

  it('refuses a relative home variable of the stub with one sentence and exit 2', () => {
    const r = run(['scan'], { ...env, STUB_AGENT_HOME: 'relstub' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('cleanerx: STUB_AGENT_HOME is a relative path ("relstub"); set it to an absolute path or unset it.\n');
  });

  it('--demo fills its home from its own descriptor', () => {
    const r = run(['scan', '--demo', '--agent', 'stub', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [stub] = JSON.parse(r.stdout).agents;
    expect(stub.agent).toBe('stub');
    expect(stub.home).not.toBe(env.STUB_AGENT_HOME);
    expect(stub.sessions.map((s: { title: string }) => s.title).sort()).toEqual(['Stub demo session one', 'Stub demo session two']);
  });

  it('doctor names it', () => {
    const r = run(['doctor']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Stub Agent');
  });

  it('the app shows it in the agent selector and lists its sessions', async () => {
    const pty = openPty({ args: [], env, cols: 100, rows: 30, program: join(copy, 'dist', 'cli.js') });
    await pty.waitFor('Stub Agent', 30_000);
    pty.press('2');
    await pty.waitFor('Stub session alpha', 30_000);
    expect(pty.text()).toContain('Stub session beta');
  }, 90_000);
});
