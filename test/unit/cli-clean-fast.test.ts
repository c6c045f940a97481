// `clean` in its usual spellings runs without yargs (src/cli/clean-args.ts).
// The same argv through the fast path and through yargs (runCommandLine)
// must print the same lines, end with the same error and exit code, and
// leave the same files: a mutating command, so every case runs both ways on
// twin homes and anything the fast path does not know goes to yargs.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CleanArgs, cleanArgs } from '../../src/cli/clean-args.js';
import { cleanOptionsOf, runClean } from '../../src/cli/clean.js';
import { runCommandLine } from '../../src/cli/command-line.js';
import { cliEngine } from '../../src/cli/engine-factory.js';
import type { PassphraseReader } from '../../src/cli/passphrase.js';
import type { Printer } from '../../src/cli/printer.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { exitCodeFor } from '../../src/terminal/terminal-out.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const base: CleanArgs = { ids: [], yes: false, json: false, backup: false, readOnly: false };

describe('cleanArgs', () => {
  it('reads the usual spellings', () => {
    expect(cleanArgs(['clean'])).toEqual(base);
    expect(cleanArgs(['clean', '--agent', 'pi', '--id', 'a', '--id=b', '--yes', '--json'])).toEqual({
      ...base,
      agent: 'pi',
      ids: ['a', 'b'],
      yes: true,
      json: true,
    });
    expect(cleanArgs(['clean', '--plan', 'p.json', '--agent=claude', '--backup', '--read-only'])).toEqual({
      ...base,
      agent: 'claude',
      plan: 'p.json',
      backup: true,
      readOnly: true,
    });
  });

  it('leaves everything else to yargs', () => {
    for (const argv of [
      [],
      ['scan'],
      ['--yes', 'clean'],
      ['clean', '--help'],
      ['clean', '-h'],
      ['clean', '--agent'],
      ['clean', '--agent', 'nope', '--id', 'a'],
      ['clean', '--agent='],
      ['clean', '--agent', 'pi', '--agent', 'pi', '--id', 'a'],
      ['clean', '--agent', 'pi', '--id'],
      ['clean', '--agent', 'pi', '--id='],
      ['clean', '--agent', 'pi', '--id', ''],
      ['clean', '--agent', 'pi', '--id', '-x'],
      ['clean', '--agent', 'pi', '--id', '--yes'],
      ['clean', '--agent', 'pi', '--id', 'a', 'b'],
      ['clean', '--agent', 'pi', '--id', 'a', '--yes', 'true'],
      ['clean', '--agent', 'pi', '--id', 'a', '--yes=true'],
      ['clean', '--agent', 'pi', '--id', 'a', '--yes', '--yes'],
      ['clean', '--agent', 'pi', '--id', 'a', '--no-yes'],
      ['clean', '--agent', 'pi', '--id', 'a', '--json', '--json'],
      ['clean', '--agent', 'pi', '--archive', 'a'],
      ['clean', '--agent', 'pi', '--unarchive', 'a'],
      ['clean', '--agent', 'pi', '--ids', 'a'],
      ['clean', '--agent', 'pi', '-y', '--id', 'a'],
      ['clean', '--plan', 'a', '--plan', 'b'],
      ['clean', '--demo', '--id', 'a'],
      ['clean', '--agent', 'pi', '--', '--id', 'a'],
      ['clean', 'extra'],
    ])
      expect(cleanArgs(argv), argv.join(' ')).toBeNull();
  });
});

interface Outcome {
  code: number;
  out: string[];
  err: string[];
  progress: number;
  /** The agent's dir after the run: relative paths and contents (a fork names its parent's file, so the home's path is replaced). */
  tree: [string, string][];
}

const NOW = Date.now() - 3_600_000;
const homes: TempEnv[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

/** A fresh home with the same sessions every time (seeded, fixed clock). */
function twinHome(): { t: TempEnv; ids: string[] } {
  const t = makeTempEnv();
  homes.push(t);
  const m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 4, forkRate: 0.5, now: NOW, seed: 7, config: true });
  return { t, ids: m.sessions.map((s) => s.id) };
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));
}

async function outcome(t: TempEnv, run: (deps: { io: Printer; passphrase: PassphraseReader }) => Promise<number>): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  let progress = 0;
  // Between twin homes only the home's path, the operation's id and the disk's free space (others write to it: freedBytes and why) differ.
  const norm = (s: string) =>
    s
      .split(t.root)
      .join('<root>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/"freedBytes":-?\d+/g, '"freedBytes":<n>')
      .replace(/"explanations":\[[^\]]*\]/g, '"explanations":<why>');
  const io: Printer = {
    out: (...l) => out.push(...l.map((x) => norm(String(x)))),
    err: (...l) => err.push(...l.map((x) => norm(String(x)))),
    prompt: () => undefined,
    progress: () => void progress++,
  };
  const passphrase: PassphraseReader = { interactive: false, read: async () => 'correct horse battery staple' };
  let code: number;
  try {
    code = await run({ io, passphrase });
  } catch (e) {
    code = exitCodeFor(e);
    err.push(`error: ${norm((e as Error).message)}`);
  }
  return {
    code,
    out,
    err,
    progress,
    tree: filesOf(t.env.PI_CODING_AGENT_DIR!).map((f) => [relative(t.root, f), norm(readFileSync(f, 'utf8'))] as [string, string]),
  };
}

/** The same argv (with `$0`…`$n` standing for the home's session ids) through both paths, each on its own twin home. */
async function bothWays(template: string[]): Promise<[Outcome, Outcome]> {
  const argvFor = (ids: string[]) => template.map((a) => a.replace(/\$(\d)/g, (_, n) => ids[Number(n)]!));
  const fast = twinHome();
  const fastArgv = argvFor(fast.ids);
  const parsed = cleanArgs(fastArgv);
  expect(parsed, fastArgv.join(' ')).not.toBeNull();
  const engine = (t: TempEnv) => async (o: { readOnly: boolean }) => cliEngine(t.env, o);
  const a = await outcome(fast.t, (d) => runClean(cleanOptionsOf(parsed!), { engine: engine(fast.t), ...d }));
  const slow = twinHome();
  const b = await outcome(slow.t, (d) =>
    runCommandLine(argvFor(slow.ids), { engine: engine(slow.t), env: slow.t.env, startApp: async () => 99, columns: 80, ...d }),
  );
  return [a, b];
}

describe('clean through the fast path and through yargs', () => {
  const cases: string[][] = [
    ['clean', '--agent', 'pi', '--id', '$0', '--id', '$1', '--yes'],
    ['clean', '--agent=pi', '--id=$2', '--id', 'session:$3', '--yes', '--json'],
    ['clean', '--json', '--yes', '--agent', 'pi', '--id', '$4'],
    ['clean', '--agent', 'pi', '--id', '$0'],
    ['clean', '--agent', 'pi', '--id', '$0', '--backup'],
    ['clean', '--agent', 'pi', '--id', '$0', '--yes', '--read-only'],
    ['clean', '--agent', 'pi', '--id', '$0', '--id', '$0', '--yes'],
    ['clean', '--agent', 'pi', '--id', 'no-such-session', '--yes'],
    ['clean', '--agent', 'pi', '--id', '123', '--id', 'true', '--id', '1e3', '--yes'],
    ['clean', '--agent', 'pi', '--id', 'protected:pi:auth.json', '--yes'],
    ['clean', '--id', '$0', '--yes'],
    ['clean', '--agent', 'pi'],
    ['clean'],
    ['clean', '--agent', 'pi', '--id', '$0', '--plan', 'plan.json'],
    ['clean', '--plan', 'no-such-plan.json', '--yes'],
  ];
  for (const c of cases)
    it(c.join(' '), async () => {
      const [fast, slow] = await bothWays(c);
      expect(fast).toEqual(slow);
      expect(fast.out.length + fast.err.length).toBeGreaterThan(0);
    });

  it('removes what it says and exits 0 (the cases above are not all refusals)', async () => {
    const [fast] = await bothWays(['clean', '--agent', 'pi', '--id', '$0', '--id', '$1', '--yes']);
    expect(fast.code).toBe(0);
    expect(fast.out.at(-1)).toMatch(/<uuid>/);
  });

  it('the binary takes the fast path and gives yargs usage errors (exit 2) for the same words', () => {
    const { t, ids } = twinHome();
    const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: t.env, encoding: 'utf8', input: '' });
    // Without --yes nothing is removed, so one home serves both spellings.
    const fast = run(['clean', '--agent', 'pi', '--id', ids[0]!]);
    const slow = run(['clean', '--agent', 'pi', '--id', ids[0]!, '--yes=false']);
    expect(fast.status).toBe(2);
    expect(fast.stdout).toContain(ids[0]);
    expect([fast.status, fast.stdout, fast.stderr]).toEqual([slow.status, slow.stdout, slow.stderr]);
    const bad = run(['clean', '--agent', 'nope', '--id', ids[0]!]);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(run(['clean', '--agent', 'pi']).stderr).toBe(run(['clean', '--agent', 'pi', '--json=false']).stderr);
  });
});
