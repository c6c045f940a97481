// Recovery tells the truth: it looks at every path of every planned item
// (against the identities captured before the run), never reports "All
// applied" or "Not applied" when that contradicts the journal, and the
// restore of a partially applied item brings back only what is missing.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';
import { journalDir, listJournals, type Journal } from '../../src/engine/cleanup/journal.js';
import type { ObservedRecoveryOperation } from '../../src/engine/cleanup/recovery.js';
import { CLI } from '../helpers/pty-screen.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const SECRET = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
const PASS = 'passphrase-123\n';
const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

function cli(t: TempEnv, args: string[], extra: Record<string, string> = {}, input = ''): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...SECRET, ...extra }, encoding: 'utf8', input, timeout: 30_000 });
}

/** A Claude Code session owning exactly three paths: its transcript, tasks/<id> and file-history/<id>. */
function threePathSession(): { t: TempEnv; id: string; paths: string[] } {
  const t = makeTempEnv('cleanerx-truth-');
  envs.push(t);
  const dir = t.env.CLAUDE_CONFIG_DIR!;
  const m = buildClaudeFixture({ configDir: dir, projects: 1, sessionsPerProject: 3, bodyBytes: 300, cwdRoot: join(t.env.HOME!, 'code') });
  const s = m.sessions[0]!;
  for (const p of s.ownedPaths) rmSync(p, { recursive: true, force: true });
  mkdirSync(join(dir, 'tasks', s.id), { recursive: true });
  writeFileSync(join(dir, 'tasks', s.id, '1.json'), '{"id":"1","subject":"a task"}\n');
  mkdirSync(join(dir, 'file-history', s.id), { recursive: true });
  for (const v of ['v1', 'v2']) writeFileSync(join(dir, 'file-history', s.id, `0123456789abcdef@${v}`), `backup ${v}\n`);
  return { t, id: `session:${s.id}`, paths: [s.file, join(dir, 'tasks', s.id), join(dir, 'file-history', s.id)] };
}

const own = (t: TempEnv): string[] => [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_DATA_DIR!, t.env.CLEANERX_CONFIG_DIR!];
const home = (t: TempEnv): Map<string, string> => hashTree(t.env.HOME!, own(t));
/** cleanerx may create the parents of its own dirs; nothing else may appear. */
const agentDiff = (t: TempEnv, a: Map<string, string>, b: Map<string, string>): string[] =>
  treeDiff(a, b).filter((l) => !(l.startsWith('added ') && own(t).some((d) => d.startsWith(join(t.env.HOME!, l.slice(6)) + '/'))));

function journal(t: TempEnv): Journal {
  const dir = journalDir(t.env.CLEANERX_STATE_DIR!);
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  expect(names).toHaveLength(1);
  return JSON.parse(readFileSync(join(dir, names[0]!), 'utf8')) as Journal;
}

async function listed(t: TempEnv): Promise<ObservedRecoveryOperation> {
  const ops = (await new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env)).recoveryList()) as ObservedRecoveryOperation[];
  expect(ops).toHaveLength(1);
  return ops[0]!;
}

const killed = (r: SpawnSyncReturns<string>): void => expect(r.signal ?? r.status, r.stderr).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);

describe('recovery truth', () => {
  it('a kill inside a three-path Claude Code item (remove:0:0:after): partially applied, path by path; restore brings back only the missing path', async () => {
    const { t, id, paths } = threePathSession();
    const before = home(t);
    const ino = new Map(paths.map((p) => [p, lstatSync(p).ino]));
    killed(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes', '--backup'], { CLEANERX_CRASH_AT: 'remove:0:0:after' }, PASS));
    const j = journal(t);
    expect(j.plan.items).toHaveLength(1);
    expect([...j.plan.items[0]!.paths].sort()).toEqual([...paths].sort());
    const first = j.plan.operations[0]!.paths[0]!;

    const text = cli(t, ['recovery']).stdout;
    expect(text).toMatch(/observed: Partially applied — /);
    expect(text).not.toMatch(/All applied|Not applied/);
    const op = await listed(t);
    expect(op.observed).toBe('Partially applied');
    expect(op.reason).toMatch(/1 of 3 paths gone or changed/);
    expect(op.canAccept).toBe(false);
    expect(op.canClose).toBe(true);
    expect(op.canRestore).toBe(true);
    expect(op.items).toHaveLength(1);
    expect(op.items[0]!.state).toBe('partial');
    expect(Object.fromEntries(op.items[0]!.paths.map((p) => [p.path, p.state]))).toEqual(
      Object.fromEntries(paths.map((p) => [p, p === first ? 'missing' : 'intact'])),
    );
    expect(cli(t, ['recovery', 'accept', j.operationId]).stderr).toMatch(/^cleanerx: Cannot accept: /);

    const r = cli(t, ['recovery', 'restore', j.operationId], {}, PASS);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('No interrupted cleanup.\n');
    expect(agentDiff(t, before, home(t))).toEqual([]);
    // The paths that were still there were left alone, not rewritten.
    for (const p of paths) if (p !== first) expect(lstatSync(p).ino, p).toBe(ino.get(p));
    expect(journal(t).status).toBe('recovered');
  }, 60_000);

  it('a kill inside one directory tree (remove:0:<k>:partial): that path is "changed", the item partial; restore fills in only the missing entries', async () => {
    const { t, id, paths } = threePathSession();
    const fh = paths[2]!;
    writeFileSync(join(fh, 'fedcba9876543210@v1'), 'a third backup\n');
    // Review in-process to learn at which position of the operation file-history comes.
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const plan = await engine.plan((await engine.scan('claude')).snapshotId, [id]);
    const k = plan.operations[0]!.paths.indexOf(fh);
    expect(k).toBeGreaterThanOrEqual(0);
    const before = home(t);
    killed(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes', '--backup'], { CLEANERX_CRASH_AT: `remove:0:${k}:partial` }, PASS));
    const left = readdirSync(fh);
    expect(left).toHaveLength(2);
    const keptIno = new Map(left.map((n) => [n, lstatSync(join(fh, n)).ino]));
    const op = await listed(t);
    expect(op.observed).toBe('Partially applied');
    expect(op.items[0]!.paths.find((p) => p.path === fh)!.state).toBe('changed');
    expect(op.canRestore).toBe(true);
    const r = cli(t, ['recovery', 'restore', op.operationId], {}, PASS);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(agentDiff(t, before, home(t))).toEqual([]);
    for (const [n, i] of keptIno) expect(lstatSync(join(fh, n)).ino, n).toBe(i);
    expect(journal(t).status).toBe('recovered');
  }, 60_000);

  it('the journal records a mutation applied but every path is back as a copy: never "Not applied"', async () => {
    const { t, id, paths } = threePathSession();
    const save = join(t.root, 'saved');
    paths.forEach((p, i) => cpSync(p, join(save, String(i)), { recursive: true, preserveTimestamps: true }));
    killed(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes'], { CLEANERX_CRASH_AT: 'mutation:0:applied' }));
    expect(journal(t).mutations[0]!.status).toBe('applied');
    // Put back as copies (new mtimes), as a user restoring by hand would.
    paths.forEach((p, i) => cpSync(join(save, String(i)), p, { recursive: true }));
    const op = await listed(t);
    expect(op.observed).toBe('Partially applied');
    // A recreated directory may get the freed inode number back: then its tree revision tells it apart.
    for (const p of op.items[0]!.paths) expect(['replaced', 'changed'], p.path).toContain(p.state);
    expect(op.canAccept || op.canRestore).toBe(false);
    expect(op.canClose).toBe(true);
  }, 60_000);

  it('nothing was started by the journal, yet a planned path is gone: "Not provable", closable, never accepted', async () => {
    const { t, id, paths } = threePathSession();
    killed(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes'], { CLEANERX_CRASH_AT: 'journal:deleting' }));
    rmSync(paths[2]!, { recursive: true });
    const op = await listed(t);
    expect(op.observed).toBe('Not provable');
    expect(op.reason).toMatch(/the journal records no removal started; something else changed this data\.$/);
    expect(op.canAccept).toBe(false);
    expect(op.canClose).toBe(true);
    const done = cli(t, ['recovery', 'close', op.operationId]);
    expect(done.status, done.stderr).toBe(0);
    expect(journal(t).status).toBe('terminated');
  }, 60_000);

  it('a FIFO or a link in place of a journal is an unknown journal, read without blocking', async () => {
    const t = makeTempEnv('cleanerx-truth-');
    envs.push(t);
    const dir = journalDir(t.env.CLEANERX_STATE_DIR!);
    mkdirSync(dir, { recursive: true });
    expect(spawnSync('mkfifo', [join(dir, '7d4f1e0a-0000-4000-8000-000000000002.json')]).status).toBe(0);
    writeFileSync(join(t.root, 'elsewhere.json'), '{}');
    symlinkSync(join(t.root, 'elsewhere.json'), join(dir, '7d4f1e0a-0000-4000-8000-000000000003.json'));
    const all = await listJournals(t.env.CLEANERX_STATE_DIR!);
    expect(all.map((e) => e.kind)).toEqual(['unknown', 'unknown']);
  });

  it('a kill before anything was removed: "Not applied", every path intact', async () => {
    const { t, id, paths } = threePathSession();
    const before = home(t);
    killed(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes'], { CLEANERX_CRASH_AT: 'remove:0:0:before' }));
    const op = await listed(t);
    expect(op.observed).toBe('Not applied');
    expect(op.items[0]!.paths.map((p) => p.state)).toEqual(paths.map(() => 'intact'));
    expect(op.canRestore).toBe(false);
    expect(agentDiff(t, before, home(t))).toEqual([]);
  }, 60_000);
});
