// Each command's run function in process: a real Engine on a temp home
// (through the CLI's own engine factory), a printer that keeps the lines, a
// passphrase reader that answers from a list. The output, the exit code (a
// thrown error's is exitCodeFor's, as the binary's printer maps it) and, for
// every mutation, the agent's tree byte for byte.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { appArgs, parseAgent, type AppRequest } from '../../src/cli/app-args.js';
import { runBackups } from '../../src/cli/backups.js';
import { cleanTarget, runClean } from '../../src/cli/clean.js';
import { runCommandLine } from '../../src/cli/command-line.js';
import { runDoctor } from '../../src/cli/doctor.js';
import { cliEngine, type EngineFactory } from '../../src/cli/engine-factory.js';
import { runKeyStore } from '../../src/cli/key.js';
import type { PassphraseReader } from '../../src/cli/passphrase.js';
import { runPlan } from '../../src/cli/plan.js';
import { rulesFromArgs } from '../../src/cli/plan-rules.js';
import type { Printer } from '../../src/cli/printer.js';
import { runRecovery } from '../../src/cli/recovery.js';
import { runScan } from '../../src/cli/scan.js';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import type { Engine } from '../../src/engine/api/engine.js';
import type { SafeText } from '../../src/engine/core/text.js';
import { exitCodeFor } from '../../src/terminal/terminal-out.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

/** Keeps what a command printed, stream by stream; progress and prompts apart. */
class MemoryPrinter implements Printer {
  stdout: string[] = [];
  stderr: string[] = [];
  prompts: string[] = [];
  progressLines: string[] = [];
  out = (...lines: SafeText[]): void => void this.stdout.push(...lines.flatMap((l) => l.split('\n')));
  err = (...lines: SafeText[]): void => void this.stderr.push(...lines.flatMap((l) => l.split('\n')));
  prompt = (text: SafeText): void => void this.prompts.push(text);
  progress = (text: SafeText): void => void this.progressLines.push(text);
}

/** Answers prompts from a list (and fails the test when asked once too often). */
function answers(list: string[], interactive = true): PassphraseReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    interactive,
    asked,
    read: async (prompt) => {
      asked.push(prompt);
      const a = list.shift();
      if (a === undefined) throw new Error(`unexpected prompt: ${prompt}`);
      return a;
    },
  };
}

const PASS = 'passphrase-123';
let t: TempEnv;
let m: PiFixtureManifest;
let io: MemoryPrinter;
let engines: Engine[];
/** The CLI's own factory on the temp home; every engine it built is closed after the test. */
let engine: EngineFactory;
const agentDir = (): string => t.env.PI_CODING_AGENT_DIR!;

beforeAll(() => {
  // A cheap key derivation for the backup key (honoured only in test mode).
  vi.stubEnv('CLEANERX_TEST_MODE', '1');
  vi.stubEnv('CLEANERX_SCRYPT_LOG_N', '12');
});
afterAll(() => vi.unstubAllEnvs());

beforeEach(() => {
  t = makeTempEnv('cleanerx-cli-units-');
  m = buildPiFixture({ agentDir: agentDir(), projects: 2, sessionsPerProject: 3, forkRate: 0, now: Date.now(), cwdRoot: join(t.env.HOME!, 'src') });
  io = new MemoryPrinter();
  engines = [];
  engine = async (opts) => {
    const e = cliEngine(t.env, opts);
    engines.push(e);
    return e;
  };
});
afterEach(async () => {
  for (const e of engines) await e.close();
  t.cleanup();
});

/** The error a run function threw and the exit code the binary gives it. */
async function failure(p: Promise<number>): Promise<{ code: number; message: string }> {
  const e = await p.then(
    () => expect.fail('expected the command to fail'),
    (err: unknown) => err as Error,
  );
  return { code: exitCodeFor(e), message: e.message };
}

const sessionIds = (): string[] => m.sessions.map((s) => s.id);

describe('scan', () => {
  it('text: one block per agent, pi with its totals and projects; exit 0', async () => {
    expect(await runScan({ json: false, readOnly: false }, { engine, io })).toBe(0);
    expect(io.stderr).toEqual([]);
    expect(io.stdout[0]).toBe('Codex — Not detected');
    const pi = io.stdout.indexOf('pi — Local data only');
    expect(pi).toBeGreaterThan(0);
    expect(io.stdout[pi + 1]).toBe(`  home      ${agentDir()}`);
    expect(io.stdout[pi + 2]).toMatch(new RegExp(`^  total     .* in \\d+ items, ${m.sessions.length} sessions$`));
    expect(io.stdout).toContain('  largest projects');
    // The last agent's blank line is dropped.
    expect(io.stdout.at(-1)).not.toBe('');
  });

  it('--json --agent pi: the report on stdout, the settings problem beside it on stderr', async () => {
    mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), '{"version": 2}');
    expect(await runScan({ agent: 'pi', json: true, readOnly: true }, { engine, io })).toBe(0);
    expect(io.stdout).toHaveLength(1);
    const report = JSON.parse(io.stdout[0]!) as { version: number; agents: { agent: string; sessions: { id: string }[] }[] };
    expect(report.version).toBe(1);
    expect(report.agents.map((a) => a.agent)).toEqual(['pi']);
    expect(report.agents[0]!.sessions.map((s) => s.id).sort()).toEqual(sessionIds().sort());
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(/^settings +.*config\.json is invalid \(unknown version\); using defaults/);
  });
});

describe('doctor', () => {
  it('reports each agent, the dirs from its env and the key store hint for a desktop bus', async () => {
    const env = { ...t.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' };
    expect(await runDoctor({ readOnly: false }, { engine, io, env })).toBe(0);
    for (const name of ['Codex', 'Claude Code', 'OpenCode', 'pi']) expect(io.stdout.some((l) => l.startsWith(name))).toBe(true);
    expect(io.stdout).toContain(`  config      ${t.env.CLEANERX_CONFIG_DIR}`);
    expect(io.stdout).toContain(`  backup key  not created yet; the first backup creates ${t.env.CLEANERX_DATA_DIR}/identity.age`);
    expect(io.stdout.at(-1)).toMatch(/^ {2}key store {3}the passphrase-protected file; a desktop session bus is present: /);
    io.stdout = [];
    await runDoctor({ readOnly: false }, { engine, io, env: t.env });
    expect(io.stdout.at(-1)).toBe('  key store   the passphrase-protected file (no desktop session bus here)');
  });
});

describe('plan', () => {
  it('text: the home, the items and how to run exactly this plan; nothing removed', async () => {
    const before = hashTree(agentDir());
    const rules = rulesFromArgs({ 'keep-latest': '1' });
    expect(await runPlan({ agent: 'pi', rules, json: false, readOnly: false }, { engine, io })).toBe(0);
    expect(io.stdout[0]).toBe(`pi home: ${agentDir()}`);
    expect(io.stdout[1]).toMatch(/^Plan: \d+ items, /);
    expect(io.stdout.at(-1)).toBe(
      'Nothing was removed. To run exactly this plan: cleanerx plan --agent pi --keep-latest 1 --json > plan.json, then cleanerx clean --plan plan.json --yes',
    );
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });

  it('an unknown project is a usage error (exit 2)', async () => {
    const r = await failure(runPlan({ agent: 'pi', rules: { project: 'nowhere' }, json: true, readOnly: false }, { engine, io }));
    expect(r.code).toBe(2);
    expect(r.message).toMatch(/^No project "nowhere" in this scan/);
    expect(io.stdout).toEqual([]);
  });
});

describe('clean', () => {
  it('the target: --id or --plan, and --agent with --id, else a usage error', () => {
    expect(cleanTarget(['a'], undefined, 'pi')).toEqual({ ids: ['a'] });
    expect(cleanTarget([], 'p.json', undefined)).toEqual({ file: 'p.json' });
    for (const [ids, plan, agent, msg] of [
      [['a'], 'p.json', 'pi', 'clean takes either --id or --plan, not both.'],
      [[], undefined, 'pi', 'clean needs --id ITEM (repeatable) or --plan FILE.'],
      [['a'], undefined, undefined, 'clean --id needs --agent.'],
    ] as const) {
      let e: unknown;
      try {
        cleanTarget(ids, plan, agent);
      } catch (err) {
        e = err;
      }
      expect(exitCodeFor(e)).toBe(2);
      expect((e as Error).message).toBe(msg);
    }
  });

  it('without --yes: prints the home and the plan, removes nothing, exit 2', async () => {
    // A first scan makes cleanerx's scan history, which every scan appends to; all else must stay as it is.
    await runScan({ agent: 'pi', json: true, readOnly: false }, { engine, io });
    io.stdout = [];
    const wholeTree = (): Map<string, string> => hashTree(t.root, [join(t.env.CLEANERX_STATE_DIR!, 'scan-history.json')]);
    const before = wholeTree();
    const [id] = sessionIds();
    const r = await failure(
      runClean({ agent: 'pi', what: { ids: [id!] }, yes: false, readOnly: false, backup: false }, { engine, io, passphrase: answers([]) }),
    );
    expect(r).toEqual({ code: 2, message: 'Nothing was removed: add --yes to confirm this irreversible cleanup.' });
    expect(io.stdout[0]).toBe(`pi home: ${agentDir()}`);
    expect(io.stdout[1]).toMatch(/^pi: 1 item, /);
    expect(io.stdout[2]).toMatch(new RegExp(`^  session:${id}  `));
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });

  it('--yes: a bare session id is accepted; exactly that session goes, everything else byte-identical', async () => {
    const target = m.sessions[0]!;
    const before = hashTree(agentDir());
    expect(
      await runClean({ agent: 'pi', what: { ids: [target.id] }, yes: true, readOnly: false, backup: false }, { engine, io, passphrase: answers([]) }),
    ).toBe(0);
    expect(io.stdout.at(-1)).toMatch(/^complete: .* \(operation [\w-]+\)$/);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([`removed ${relative(agentDir(), target.file)}`]);
  });

  it('a running pi blocks it: the blocker on stderr, exit 1, nothing removed', async () => {
    fakeProcess(t.procRoot, 4242, 'pi', ['pi']);
    const before = hashTree(agentDir());
    expect(
      await runClean({ agent: 'pi', what: { ids: [sessionIds()[0]!] }, yes: true, readOnly: false, backup: false }, { engine, io, passphrase: answers([]) }),
    ).toBe(1);
    expect(io.stderr.length).toBeGreaterThan(0);
    for (const l of io.stderr) expect(l).toMatch(/^blocked: /);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });

  it('--plan FILE: an out-of-date plan is refused in one line on stderr (exit 1), nothing removed', async () => {
    await runPlan({ agent: 'pi', rules: { keepLatest: 1 }, json: true, readOnly: false }, { engine, io });
    const file = join(t.root, 'plan.json');
    writeFileSync(file, io.stdout[0]!);
    const planned = (JSON.parse(io.stdout[0]!) as { items: { id: string }[] }).items.map((i) => i.id);
    expect(planned.length).toBeGreaterThan(0);
    writeFileSync(m.sessions.find((s) => `session:${s.id}` === planned[0])!.file, '{"changed":true}\n', { flag: 'a' });
    const before = hashTree(agentDir());
    io.stdout = [];
    expect(await runClean({ what: { file }, yes: true, readOnly: false, backup: false }, { engine, io, passphrase: answers([]) })).toBe(1);
    expect(io.stdout).toEqual([]);
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(/^cleanerx: The plan is out of date: .*Nothing was removed; make a new plan\.$/);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });

  it('--plan FILE for another agent than --agent is a usage error', async () => {
    await runPlan({ agent: 'pi', rules: { keepLatest: 1 }, json: true, readOnly: false }, { engine, io });
    const file = join(t.root, 'plan.json');
    writeFileSync(file, io.stdout[0]!);
    const r = await failure(runClean({ agent: 'claude', what: { file }, yes: true, readOnly: false, backup: false }, { engine, io, passphrase: answers([]) }));
    expect(r).toEqual({ code: 2, message: 'The plan is for pi; drop --agent or pass --agent pi.' });
  });

  it('--backup on a terminal: two different new passphrases refuse before anything is removed', async () => {
    const before = hashTree(agentDir());
    const reader = answers([PASS, 'something-else']);
    const r = await failure(
      runClean({ agent: 'pi', what: { ids: [sessionIds()[0]!] }, yes: true, readOnly: false, backup: true }, { engine, io, passphrase: reader }),
    );
    expect(r).toEqual({ code: 2, message: 'The passphrases differ; nothing was removed.' });
    expect(reader.asked).toEqual(['New backup key passphrase (8+ characters): ', 'Repeat the passphrase: ']);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });
});

describe('backups and the key store', () => {
  /** A backed-up cleanup of the first two sessions (piped passphrase: asked once); the backup's id. */
  async function backedUp(): Promise<{ id: string; before: Map<string, string> }> {
    const before = hashTree(agentDir());
    const reader = answers([PASS], false);
    const ids = sessionIds().slice(0, 2);
    expect(await runClean({ agent: 'pi', what: { ids }, yes: true, readOnly: false, backup: true }, { engine, io, passphrase: reader })).toBe(0);
    expect(reader.asked).toEqual(['New backup key passphrase (8+ characters): ']);
    for (const s of m.sessions.slice(0, 2)) expect(existsSync(s.file)).toBe(false);
    io.stdout = [];
    expect(await runBackups({ action: 'list', yes: false }, { engine, io, passphrase: answers([]) })).toBe(0);
    expect(io.stdout).toHaveLength(1);
    expect(io.stdout[0]).toMatch(/^\S+ {2}pi {2}\S+ {2}2 items {2}[\d.]+ [KM]?B on disk \(content [\d.]+ [KM]?B, archive [\d.]+ [KM]?B\) {2}verified \S+$/);
    const id = io.stdout[0]!.split(' ')[0]!;
    io.stdout = [];
    return { id, before };
  }

  it('an empty catalog says so; an id is needed; delete and restore need --yes (exit 2)', async () => {
    const deps = { engine, io, passphrase: answers([]) };
    expect(await runBackups({ action: 'list', yes: false }, deps)).toBe(0);
    expect(io.stdout).toEqual(['No backups.']);
    expect(await failure(runBackups({ action: 'verify', yes: false }, deps))).toEqual({
      code: 2,
      message: 'backups verify needs a backup id (see cleanerx backups list).',
    });
    expect(await failure(runBackups({ action: 'delete', id: 'x', yes: false }, deps))).toEqual({
      code: 2,
      message: 'Nothing was deleted: add --yes to delete this backup forever.',
    });
    expect(await failure(runBackups({ action: 'delete', id: 'x', yes: true }, deps))).toEqual({ code: 2, message: 'No backup x in the catalog.' });
  });

  it('verify, a dry restore without --yes, the restore, then delete: the tree comes back byte for byte', { timeout: 60_000 }, async () => {
    const { id, before } = await backedUp();
    expect(await runBackups({ action: 'verify', id, yes: false }, { engine, io, passphrase: answers([PASS]) })).toBe(0);
    expect(io.stdout).toEqual([expect.stringMatching(/^Verified: all \d+ entries \(.*\) match the manifest\.$/)]);
    io.stdout = [];
    const dry = await failure(runBackups({ action: 'restore', id, yes: false }, { engine, io, passphrase: answers([PASS]) }));
    expect(dry.code).toBe(2);
    expect(dry.message).toBe('Nothing was restored: add --yes to restore 2 files.');
    expect(io.stdout[0]).toMatch(/^Restore would create 2 .*:$/);
    expect(io.stdout).toHaveLength(3);
    expect(treeDiff(before, hashTree(agentDir())).sort()).toEqual(
      m.sessions
        .slice(0, 2)
        .map((s) => `removed ${relative(agentDir(), s.file)}`)
        .sort(),
    );
    io.stdout = [];
    expect(await runBackups({ action: 'restore', id, yes: true }, { engine, io, passphrase: answers([PASS, PASS]) })).toBe(0);
    expect(io.stdout.at(-1)).toMatch(/^Restored 2 /);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
    io.stdout = [];
    expect(await runBackups({ action: 'delete', id, yes: true }, { engine, io, passphrase: answers([]) })).toBe(0);
    expect(io.stdout).toEqual([`Deleted backup ${id}.`]);
  });

  // Switching reaches the OS key ring through a child that inherits this process's environment (not the temp
  // home's), so a switch is tested only through the binary, whose whole environment is the temp one.
  it('key-store: shows the store and refuses an unknown one before it asks for anything', async () => {
    const reader = answers([]);
    const deps = { engine, io, passphrase: reader };
    expect(await runKeyStore({}, deps)).toBe(0);
    expect(io.stdout).toEqual(['The backup key is unlocked by its passphrase (the file).']);
    expect(await failure(runBackups({ action: 'key-store', id: 'vault', yes: false }, deps))).toEqual({
      code: 2,
      message: 'backups key-store takes "file" or "keyring".',
    });
    expect(reader.asked).toEqual([]);
  });
});

describe('recovery', () => {
  it('nothing interrupted: says so; an action needs an operation id; an unknown one is refused (exit 2)', async () => {
    const deps = { engine, io, passphrase: answers([]) };
    expect(await runRecovery({ action: 'list' }, deps)).toBe(0);
    expect(io.stdout).toEqual(['No interrupted cleanup.']);
    expect(await failure(runRecovery({ action: 'accept' }, deps))).toEqual({
      code: 2,
      message: 'recovery accept needs an operation id (see cleanerx recovery list).',
    });
    expect(await failure(runRecovery({ action: 'close', operation: 'op-nope' }, deps))).toEqual({ code: 2, message: 'No recoverable operation op-nope.' });
  });
});

describe('the command line to Options', () => {
  const started: AppRequest[] = [];
  const deps = () => ({
    engine,
    io,
    passphrase: answers([]),
    env: t.env,
    startApp: async (r: AppRequest) => {
      started.push(r);
      return 7;
    },
  });

  it('scan --agent pi --json reaches runScan with the injected printer', async () => {
    expect(await runCommandLine(['scan', '--agent', 'pi', '--json'], deps())).toBe(0);
    expect((JSON.parse(io.stdout[0]!) as { agents: unknown[] }).agents).toHaveLength(1);
  });

  it('clean --id without --agent is a usage error before any engine is built', async () => {
    expect(await failure(runCommandLine(['clean', '--id', 'x'], deps()))).toEqual({ code: 2, message: 'clean --id needs --agent.' });
    expect(engines).toHaveLength(0);
  });

  it('an unknown argument is one usage line', async () => {
    expect(await failure(runCommandLine(['scan', '--frobnicate'], deps()))).toEqual({
      code: 2,
      message: 'Unknown argument: --frobnicate (see cleanerx --help)',
    });
  });

  it('the bare app through yargs (an unusual spelling) hands the app its request and returns its code', async () => {
    started.length = 0;
    expect(await runCommandLine(['--read-only=true', '--agent', 'codex'], deps())).toBe(7);
    expect(started).toEqual([{ demo: false, keep: false, readOnly: true, noColor: false, initialAgent: 'codex' }]);
  });

  it('the fast path reads the bare app flags without yargs, and leaves the rest to it', () => {
    expect(appArgs([])).toEqual({ demo: false, keep: false, readOnly: false, noColor: false });
    expect(appArgs(['--demo', '--keep', '--agent=pi'])).toEqual({ demo: true, keep: true, readOnly: false, noColor: false, initialAgent: 'pi' });
    expect(appArgs(['--no-color'])).toEqual({ demo: false, keep: false, readOnly: false, noColor: true });
    expect(appArgs(['--read-only', '--agent', 'claude'])).toEqual({ demo: false, keep: false, readOnly: true, noColor: false, initialAgent: 'claude' });
    expect(appArgs(['scan'])).toBeNull();
    expect(appArgs(['--demo', '--help'])).toBeNull();
    expect(() => parseAgent('cur\x1bsor')).toThrow('--agent needs one of codex, claude, opencode, pi (got "cur?sor").');
    expect(() => parseAgent(undefined)).toThrow('--agent needs one of codex, claude, opencode, pi.');
  });
});
