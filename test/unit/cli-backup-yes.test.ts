// `backups restore --yes` reads the archive once: the real restore stages and
// hash-checks every byte and preflights every destination before it writes
// any, and hands over the plan its dry-run check would have printed. What
// the user sees must not change: the same plan lines, the same result, and on
// a refusal (a conflict, a wrong passphrase, a corrupt archive, the agent's
// lock held, everything already there) the same sentence as the check, or the
// check's plan and then the restore's own refusal — and nothing written.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { collectFiles, writeArchive } from '../../src/backup/archive.js';
import { addRecord, archivePathFor, backupsDir } from '../../src/backup/catalog.js';
import { createIdentity } from '../../src/backup/keystore.js';
import { backupService } from '../../src/backup/service.js';
import { runBackups } from '../../src/cli/backups.js';
import { Engine } from '../../src/engine/api/engine.js';
import { acquireAgentLock } from '../../src/engine/cleanup/agent-lock.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';
const PASS = 'correct horse battery';
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = join(REPO, 'test/helpers/restore-child.mjs');
const FILES = [
  { rel: 'sessions/--home-u-src-api--/s1.jsonl', body: Buffer.from('{"type":"session"}\n'.repeat(300)) },
  { rel: 'sessions/--home-u-src-new--/deeper/s2.jsonl', body: Buffer.from('{"type":"message","text":"héllo"}\n'.repeat(40)) },
  { rel: 'sessions/--home-u-src-new--/s3.jsonl', body: Buffer.alloc(0) },
];

const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

/** A pi home after a cleanup (other data kept), with a catalogued backup of FILES. */
async function home(): Promise<{ t: TempEnv; id: string; agentDir: string }> {
  const t = makeTempEnv('cleanerx-cli-yes-');
  envs.push(t);
  const data = ownDirs(t.env).data;
  const { recipient } = await createIdentity(data, PASS);
  const agentDir = t.env.PI_CODING_AGENT_DIR!;
  mkdirSync(join(agentDir, 'sessions/--home-u-src-api--'), { recursive: true });
  writeFileSync(join(agentDir, 'sessions/--home-u-src-api--/kept.jsonl'), '{"keep":true}\n', { mode: 0o600 });
  const src = join(t.root, 'source');
  for (const f of FILES) {
    mkdirSync(dirname(join(src, f.rel)), { recursive: true });
    writeFileSync(join(src, f.rel), f.body, { mode: 0o600 });
  }
  const id = randomUUID();
  mkdirSync(backupsDir(data), { recursive: true, mode: 0o700 });
  const files = await collectFiles(
    FILES.map((f) => join(src, f.rel)),
    [{ label: 'pi_home', dir: src }],
  );
  const { manifest, archiveBytes } = await writeArchive({
    archivePath: archivePathFor(data, id),
    recipient,
    agent: 'pi',
    operationId: 'op-yes',
    id,
    itemCount: FILES.length,
    retentionDays: 30,
    files,
  });
  await addRecord(data, {
    id,
    createdAt: manifest.createdAt,
    expiresAt: manifest.expiresAt,
    archivePath: archivePathFor(data, id),
    archiveBytes,
    originalBytes: manifest.originalBytes,
    itemCount: FILES.length,
    operationId: 'op-yes',
    agent: 'pi',
    verifiedAt: manifest.createdAt,
  });
  return { t, id, agentDir };
}

interface Run {
  out: string[];
  error: string | null;
  errorType: string | null;
  /** How often the archive was read by a dry run, and by a real restore. */
  dry: number;
  real: number;
}

/**
 * Everything under the temp root. The staging parent (an empty private dir any
 * restore, dry or not, makes once and keeps) must hold nothing.
 */
function picture(t: TempEnv): Map<string, string> {
  const staging = join(ownDirs(t.env).data, 'restore-staging');
  expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);
  return hashTree(t.root, [staging]);
}

/** `cleanerx backups restore <id> [--yes]` in process, with a fresh engine that counts its restore passes. */
async function restore(t: TempEnv, id: string, yes: boolean, passphrase = PASS): Promise<Run> {
  const run: Run = { out: [], error: null, errorType: null, dry: 0, real: 0 };
  const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
  const inner = engine.backupRestore.bind(engine);
  engine.backupRestore = (...a: Parameters<Engine['backupRestore']>) => {
    if (a[2]) run.dry++;
    else run.real++;
    return inner(...a);
  };
  const io = {
    out: (...l: string[]) => run.out.push(...l),
    err: () => undefined,
    prompt: () => undefined,
    progress: () => undefined,
  };
  try {
    await runBackups(
      { action: 'restore', id, yes },
      { engine: async () => engine, io: io as never, passphrase: { interactive: false, read: async () => passphrase } },
    );
  } catch (e) {
    run.error = (e as Error).message;
    run.errorType = (e as Error).constructor.name;
  } finally {
    await engine.close();
  }
  return run;
}

describe('backups restore --yes: one pass, the same answer', () => {
  it('prints the check’s plan lines and then the result, reading the archive once', async () => {
    const { t, id, agentDir } = await home();
    const check = await restore(t, id, false);
    expect(check.error).toMatch(/--yes/);
    expect(check.errorType).toBe('UsageError');
    expect(check.out[0]).toMatch(/^Restore would create 3 files \(.*\):$/);
    const r = await restore(t, id, true);
    expect(r.error).toBeNull();
    expect(r.out).toEqual([...check.out, 'Restored 3 files.']);
    expect([r.dry, r.real]).toEqual([0, 1]);
    for (const f of FILES) expect(statSync(join(agentDir, f.rel)).size).toBe(f.body.length);
  });

  const refusals: { name: string; make(h: { t: TempEnv; id: string; agentDir: string }): void; pass?: string; sentence: RegExp }[] = [
    {
      name: 'a conflict',
      make: ({ agentDir }) => {
        mkdirSync(dirname(join(agentDir, FILES[1]!.rel)), { recursive: true });
        writeFileSync(join(agentDir, FILES[1]!.rel), 'not the backup\n');
      },
      sentence: /s2\.jsonl already exists; a restore never overwrites anything\.$/,
    },
    { name: 'a wrong passphrase', make: () => undefined, pass: 'not the passphrase', sentence: /Wrong passphrase/ },
    {
      name: 'a corrupt archive',
      make: ({ t, id }) => {
        const p = archivePathFor(ownDirs(t.env).data, id);
        const fd = openSync(p, 'r+');
        const at = Math.floor(statSync(p).size / 2);
        const b = Buffer.alloc(1);
        readSync(fd, b, 0, 1, at);
        writeSync(fd, Buffer.from([b[0]! ^ 0x20]), 0, 1, at);
        closeSync(fd);
      },
      sentence: /damaged|authentic|corrupt/i,
    },
  ];
  for (const c of refusals) {
    it(`${c.name}: the check's one sentence, nothing printed, nothing written anywhere`, async () => {
      const h = await home();
      c.make(h);
      const before = picture(h.t);
      const check = await restore(h.t, h.id, false, c.pass);
      expect(check.error).toMatch(c.sentence);
      const r = await restore(h.t, h.id, true, c.pass);
      expect(r.error).toBe(check.error);
      expect(r.errorType).toBe(check.errorType);
      expect(r.out).toEqual([]);
      expect(check.out).toEqual([]);
      expect(treeDiff(before, picture(h.t))).toEqual([]);
    });
  }

  it('refused after the check (the agent’s lock held; everything already there): the plan, then the same refusal, nothing written', async () => {
    const { t, id, agentDir } = await home();
    const lock = acquireAgentLock(t.env.CLEANERX_STATE_DIR!, 'pi', 'cleanerx clean --agent pi');
    try {
      const before = picture(t);
      const check = await restore(t, id, false);
      const locked = await restore(t, id, true);
      expect(locked.error).toMatch(/Another pi cleanup is running/);
      expect(locked.out).toEqual(check.out);
      expect(locked.out[0]).toMatch(/^Restore would create 3 files/);
      expect(treeDiff(before, picture(t))).toEqual([]);
    } finally {
      lock.release();
    }

    for (const f of FILES) {
      mkdirSync(dirname(join(agentDir, f.rel)), { recursive: true });
      writeFileSync(join(agentDir, f.rel), f.body, { mode: 0o600 });
    }
    const full = picture(t);
    const again = await restore(t, id, false);
    expect(again.out[0]).toMatch(/3 of them already in place/);
    const r = await restore(t, id, true);
    expect(r.error).toMatch(/^Every destination already exists/);
    expect(r.out).toEqual(again.out);
    expect(treeDiff(full, picture(t))).toEqual([]);
  });

  it('an interrupted restore pending: the plan is the one a check before the settle sees, then the settled result', async () => {
    const { t, id, agentDir } = await home();
    // Killed after its second file: two of the three are back, the journal says committing.
    const killed = spawnSync(process.execPath, [CHILD, JSON.stringify({ engine: { id, passphrase: PASS } })], {
      cwd: REPO,
      env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12', CLEANERX_CRASH_AT: 'restore:1:after' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const check = await restore(t, id, false);
    expect(check.out[0]).toMatch(/^Restore would create 3 files \(.*\), 2 of them already in place:$/);
    const r = await restore(t, id, true);
    expect(r.error).toBeNull();
    expect(r.out).toEqual([...check.out, 'Restored 3 files.']);
    for (const f of FILES) expect(statSync(join(agentDir, f.rel)).size).toBe(f.body.length);
  }, 120_000);
});
