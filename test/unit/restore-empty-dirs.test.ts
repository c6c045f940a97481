// A restore gives back the backup's empty dirs (nested, with their modes),
// journaled with the dirs it may create: a rollback removes exactly the ones
// it made, never a dir that was there before. FIFOs, sockets and devices are
// not in a backup; the restore result names them.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { restoreArchive, settlePendingRestores } from '../../src/backup/restore.js';
import { backUpPiSession } from '../helpers/pi-backup.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = join(REPO, 'test/helpers/restore-child.mjs');

let t: TempEnv;
let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(() => {
  t = makeTempEnv('cleanerx-emptydirs-');
});
afterEach(() => {
  delete process.env.CLEANERX_FAIL_AT;
  // A restored 0555 dir would keep rm from emptying it.
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (lstatSync(p).isDirectory()) {
        chmodSync(p, 0o700);
        walk(p);
      }
    }
  };
  walk(t.root);
  t.cleanup();
});

/** Every entry under `root` with its type and mode (dirs included, unlike hashTree). */
function picture(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = lstatSync(p);
      const mode = (st.mode & 0o777).toString(8);
      if (st.isDirectory()) {
        out[relative(root, p)] = `dir ${mode}`;
        if (st.mode & 0o400) walk(p);
        else out[relative(root, p)] += ' (unlisted)';
      } else if (st.isFile()) out[relative(root, p)] = `file ${mode} ${readFileSync(p, 'utf8')}`;
      else out[relative(root, p)] = st.isFIFO() ? 'fifo' : 'other';
    }
  };
  walk(root);
  return out;
}

async function backUp(src: string, s: string): Promise<string> {
  return (await backUpPiSession({ path: s, root: src, env: t.env, key: { identity, recipient } })).archive;
}

describe('restore of empty dirs', () => {
  let src: string;
  let s: string;
  let archive: string;
  let original: Record<string, string>;
  const staging = (): string => join(t.root, 'staging');
  const journals = (): string => join(t.root, 'journals');
  const restore = () =>
    restoreArchive({
      archivePath: archive,
      identity,
      agent: 'pi',
      roots: { pi_home: src },
      uid: process.getuid!(),
      stagingParent: staging(),
      journalDir: journals(),
    });

  beforeEach(async () => {
    src = t.env.PI_CODING_AGENT_DIR!;
    s = join(src, 'sessions', '--home-u-src-api--');
    mkdirSync(s, { recursive: true, mode: 0o700 });
    chmodSync(s, 0o700);
    writeFileSync(join(s, 'a.jsonl'), '{"type":"session"}\n', { mode: 0o640 });
    chmodSync(join(s, 'a.jsonl'), 0o640);
    mkdirSync(join(s, 'empty', 'inner', 'deeper'), { recursive: true });
    chmodSync(join(s, 'empty'), 0o750);
    chmodSync(join(s, 'empty', 'inner'), 0o700);
    chmodSync(join(s, 'empty', 'inner', 'deeper'), 0o755);
    // A dir its owner may not write into, holding an empty dir: its mode can only be given last.
    mkdirSync(join(s, 'locked', 'child'), { recursive: true });
    chmodSync(join(s, 'locked', 'child'), 0o711);
    chmodSync(join(s, 'locked'), 0o555);
    mkdirSync(join(s, 'only-fifo'), { mode: 0o700 });
    chmodSync(join(s, 'only-fifo'), 0o700);
    execFileSync('mkfifo', [join(s, 'only-fifo', 'pipe')]);
    original = picture(src);
    archive = await backUp(src, s);
    // The cleanup.
    chmodSync(join(s, 'locked'), 0o700);
    rmSync(s, { recursive: true });
  });

  it('recreates them (nested, with their modes) and names what the backup does not hold', async () => {
    const r = await restore();
    const want = { ...original };
    delete want['sessions/--home-u-src-api--/only-fifo/pipe'];
    expect(picture(src)).toEqual(want);
    expect(r.restored).toEqual([join(s, 'a.jsonl')]);
    expect(r.emptyDirs).toEqual(['empty', 'empty/inner', 'empty/inner/deeper', 'locked', 'locked/child', 'only-fifo'].map((d) => join(s, d)));
    expect(r.notInBackup).toEqual([
      `Not in the backup: ${join(s, 'only-fifo', 'pipe')} was a FIFO (named pipe), which holds no data; the restore did not recreate it.`,
    ]);
    // Nothing of the restore's own is left behind.
    expect(readdirSync(staging())).toEqual([]);
    expect(existsSync(journals())).toBe(false);
  });

  it('a dry run reports the empty dirs it would create and creates nothing', async () => {
    const before = picture(src);
    const r = await restoreArchive({
      archivePath: archive,
      identity,
      agent: 'pi',
      roots: { pi_home: src },
      uid: process.getuid!(),
      stagingParent: staging(),
      journalDir: journals(),
      dryRun: true,
    });
    expect(r.emptyDirs).toHaveLength(6);
    expect(picture(src)).toEqual(before);
  });

  it('an existing empty dir is left as it is (mode too); only the missing ones are made', async () => {
    mkdirSync(join(s, 'empty'), { recursive: true });
    chmodSync(join(s, 'empty'), 0o700);
    const r = await restore();
    expect(r.emptyDirs).toEqual(['empty/inner', 'empty/inner/deeper', 'locked', 'locked/child', 'only-fifo'].map((d) => join(s, d)));
    expect(picture(src)['sessions/--home-u-src-api--/empty']).toBe('dir 700');
    expect(picture(src)['sessions/--home-u-src-api--/empty/inner/deeper']).toBe('dir 755');
  });

  it('a failing restore removes exactly the dirs it created, never one that was there', async () => {
    // The session dir and one empty dir exist already (someone made them since the cleanup).
    mkdirSync(join(s, 'empty'), { recursive: true });
    chmodSync(join(s, 'empty'), 0o700);
    const before = picture(src);
    process.env.CLEANERX_FAIL_AT = 'restore:emptyDirs';
    await expect(restore()).rejects.toThrow('injected failure at restore:emptyDirs');
    expect(picture(src)).toEqual(before);
    expect(readdirSync(staging())).toEqual([]);
    delete process.env.CLEANERX_FAIL_AT;
    // And then it restores completely.
    await restore();
    expect(picture(src)['sessions/--home-u-src-api--/locked']).toBe('dir 555');
    expect(picture(src)['sessions/--home-u-src-api--/empty/inner/deeper']).toBe('dir 755');
  });

  it('a failing restore into a cleaned tree leaves the tree as it was (the session dir it made is gone too)', async () => {
    const before = picture(src);
    process.env.CLEANERX_FAIL_AT = 'restore:emptyDirs';
    await expect(restore()).rejects.toThrow('injected failure at restore:emptyDirs');
    expect(picture(src)).toEqual(before);
    expect(existsSync(s)).toBe(false);
  });

  it.each(['rollback', 'resume'] as const)(
    'killed right after the empty dirs were made and given their modes: a settle %s leaves the tree as before, or whole',
    async (mode) => {
      const before = picture(src);
      const opts = {
        archivePath: archive,
        identity,
        agent: 'pi',
        roots: { pi_home: src },
        uid: process.getuid!(),
        stagingParent: staging(),
        journalDir: journals(),
      };
      const r = spawnSync(process.execPath, [CHILD, JSON.stringify(opts)], {
        cwd: REPO,
        env: { PATH: process.env.PATH, HOME: t.env.HOME, CLEANERX_CRASH_AT: 'restore:emptyDirs' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(picture(src)['sessions/--home-u-src-api--/locked']).toBe('dir 555');
      const out = await settlePendingRestores({ journalDir: journals(), stagingParent: staging(), mode, rootsFor: async () => opts.roots });
      expect(out.map((o) => o.outcome)).toEqual([mode === 'rollback' ? 'rolledBack' : 'completed']);
      if (mode === 'rollback') expect(picture(src)).toEqual(before);
      else {
        const want = { ...original };
        delete want['sessions/--home-u-src-api--/only-fifo/pipe'];
        expect(picture(src)).toEqual(want);
      }
      expect(readdirSync(staging())).toEqual([]);
      expect(readdirSync(journals())).toEqual([]);
    },
    120_000,
  );
});

// Root passes every permission check: the restore runs as an unprivileged user
// (nobody, through setpriv, when the tests run as root), so a 0555 dir really
// refuses its owner's rmdir of its child unless the rollback opens it up first.
describe('restore of empty dirs without root privileges', () => {
  const asRoot = process.getuid!() === 0;
  const uid = asRoot ? 65534 : process.getuid!();
  const run = (child: string, arg: unknown, env: Record<string, string>): ReturnType<typeof spawnSync> => {
    const cmd = [process.execPath, join(REPO, 'test/helpers', child), JSON.stringify(arg)];
    const full = asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...cmd] : cmd;
    return spawnSync(full[0]!, full.slice(1), { cwd: REPO, env: { PATH: process.env.PATH!, HOME: t.env.HOME, ...env }, encoding: 'utf8', timeout: 120_000 });
  };

  it.each([
    ['restore:emptyDirs', 'fail', 'undone in the same run'],
    ['restore:emptyDirs', 'crash', 'rolled back by the next settle'],
  ] as const)(
    '%s (%s): a dir that locks its owner out is %s all the same',
    async (point, how, _outcome) => {
      const src = t.env.PI_CODING_AGENT_DIR!;
      const s = join(src, 'sessions', '--home-u-src-api--');
      mkdirSync(join(s, 'locked', 'child'), { recursive: true });
      writeFileSync(join(s, 'a.jsonl'), 'x\n', { mode: 0o600 });
      chmodSync(join(s, 'locked'), 0o555);
      const archived = await backUp(src, s);
      chmodSync(join(s, 'locked'), 0o700);
      rmSync(s, { recursive: true });
      const archive = join(t.root, 'a.cxb');
      copyFileSync(archived, archive);
      chmodSync(t.root, 0o755);
      if (asRoot) execFileSync('chown', ['-R', `${uid}:${uid}`, t.root]);
      const before = picture(src);
      const opts = {
        archivePath: archive,
        identity,
        agent: 'pi',
        roots: { pi_home: src },
        uid,
        stagingParent: join(t.root, 'staging'),
        journalDir: join(t.root, 'journals'),
      };
      const r = run('restore-child.mjs', opts, how === 'fail' ? { CLEANERX_FAIL_AT: point } : { CLEANERX_CRASH_AT: point });
      if (how === 'fail') expect(r.stderr, String(r.stderr)).toMatch(/injected failure at restore:emptyDirs/);
      else {
        expect(r.signal, String(r.stderr)).toBe('SIGKILL');
        expect(picture(src)['sessions/--home-u-src-api--/locked']).toBe('dir 555');
        const st = run('settle-child.mjs', { journalDir: opts.journalDir, stagingParent: opts.stagingParent, mode: 'rollback', roots: opts.roots }, {});
        expect(st.stdout, String(st.stderr)).toBe('["rolledBack"]\n');
      }
      expect(picture(src)).toEqual(before);
      expect(existsSync(s)).toBe(false);
    },
    120_000,
  );
});
