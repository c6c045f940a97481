// Restore writes cannot be redirected (issue #13 item 1, the restore bullet).
// A flipper process exchanges every bucket with a symlink to a directory
// outside the home (renameat2 RENAME_EXCHANGE, in a loop), starting right
// after the restore committed its first file and running until the restore
// is over. The restore must stop with a plain sentence, undo what it put
// back, and write 0 files outside the home. The previous restore (full
// paths resolved again at every step) wrote hundreds of files there.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectFiles, writeArchive } from '../../src/backup/archive.js';
import { restoreArchive, settlePendingRestores } from '../../src/backup/restore.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

// Waits for `first` to exist, then exchanges each bucket with its symlink twin — once ('once', as in the audit: every bucket but the one being written) or over
// and over ('loop') — until `stop` exists; leaves every bucket a real dir.
const FLIPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
def exchange(a, b):
    r = libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) if hasattr(libc, 'renameat2') else libc.syscall(316, AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)
    if r != 0:
        raise OSError(ctypes.get_errno(), 'renameat2')
mode, first, stop, pairs = sys.argv[1], sys.argv[2], sys.argv[3], [tuple(p.split('|')) for p in sys.argv[4:]]
deadline = time.time() + 120
while not os.path.exists(first) and not os.path.exists(stop) and time.time() < deadline:
    time.sleep(0.0005)
flips = 0
while not os.path.exists(stop) and time.time() < deadline:
    if mode == 'once' and flips:
        time.sleep(0.001)
        continue
    for a, b in (pairs[1:] if mode == 'once' else pairs):
        exchange(a, b)
        flips += 1
for a, b in pairs:
    if os.path.islink(a):
        exchange(a, b)
print(flips)
`;

/** The names in a dir; a dir that is gone (removed once empty) lists nothing. */
const listed = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cleanerx-restore-race-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const bucket = (k: number): string => `sessions/--home-u-src-p${String(k).padStart(3, '0')}--`;

function countFiles(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const st = lstatSync(join(dir, name));
    n += st.isDirectory() ? countFiles(join(dir, name)) : 1;
  }
  return n;
}

describe('restore under a flipper exchanging buckets for symlinks', () => {
  // 16 buckets: every bucket handle is still cached from the preflight (the final re-walk catches the swap);
  // 96 buckets: more than the handle cache, so most are walked again while the flipper runs.
  it.each([
    [16, 64, 'once'],
    [16, 64, 'loop'],
    [96, 12, 'loop'],
  ] as const)(
    '%i buckets × %i files, swapped %s: 0 files outside the home, a plain sentence, everything undone',
    async (BUCKETS, PER_BUCKET, mode) => {
      const identity = await generateX25519Identity();
      // The backed-up agent: BUCKETS buckets of PER_BUCKET sessions.
      const src = join(root, 'source/agent');
      for (let k = 0; k < BUCKETS; k++) {
        mkdirSync(join(src, bucket(k)), { recursive: true });
        for (let i = 0; i < PER_BUCKET; i++)
          writeFileSync(join(src, bucket(k), `s${String(i).padStart(3, '0')}.jsonl`), `{"bucket":${k},"session":${i}}\n`, { mode: 0o600 });
      }
      const files = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
      expect(files).toHaveLength(BUCKETS * PER_BUCKET);
      const archivePath = join(root, 'backup.cxb');
      await writeArchive({
        archivePath,
        recipient: await identityToRecipient(identity),
        agent: 'pi',
        operationId: 'op-race',
        id: randomUUID(),
        itemCount: files.length,
        retentionDays: 30,
        files,
      });

      // The home after the cleanup: every bucket still there (one kept session each), the sessions gone.
      const home = join(root, 'home');
      const agentDir = join(home, '.pi/agent');
      const outside = join(root, 'outside');
      const pairs: string[] = [];
      for (let k = 0; k < BUCKETS; k++) {
        mkdirSync(join(agentDir, bucket(k)), { recursive: true });
        writeFileSync(join(agentDir, bucket(k), 'kept.jsonl'), '{"keep":true}\n', { mode: 0o600 });
        mkdirSync(join(outside, String(k)), { recursive: true });
        symlinkSync(join(outside, String(k)), join(agentDir, `${bucket(k)}.twin`));
        pairs.push(`${join(agentDir, bucket(k))}|${join(agentDir, `${bucket(k)}.twin`)}`);
      }
      const before = hashTree(agentDir);
      const stop = join(root, 'stop');
      const first = join(agentDir, bucket(0), 's000.jsonl');
      const flipper = spawn('python3', ['-c', FLIPPER, mode, first, stop, ...pairs], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      flipper.stdout.on('data', (d: Buffer) => (out += d.toString()));
      flipper.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => flipper.on('exit', (code) => r(code)));

      const opts = {
        archivePath,
        identity,
        agent: 'pi' as const,
        roots: { pi_home: agentDir },
        uid: process.getuid!(),
        stagingParent: join(root, 'data/restore-staging'),
        journalDir: join(root, 'state/restores'),
      };
      let error: Error | null = null;
      try {
        await restoreArchive(opts);
      } catch (e) {
        error = e as Error;
      } finally {
        writeFileSync(stop, '');
      }
      expect(await exited, err).toBe(0);
      const flips = Number(out.trim());

      // The claim: nothing was written outside the home, whatever the outcome.
      const written = Array.from({ length: BUCKETS }, (_, k) => countFiles(join(outside, String(k)))).reduce((a, b) => a + b, 0);
      expect(written, `${written} files written outside the home${error ? ` (${error.message})` : ' (the restore reported success)'}`).toBe(0);
      expect(flips).toBeGreaterThan(0); // the flipper really ran during the restore
      const restoredAll = (): void => {
        const restored = hashTree(join(agentDir, 'sessions'));
        for (const k of [...restored.keys()]) if (k.endsWith('.twin') || k.endsWith('kept.jsonl')) restored.delete(k);
        expect(treeDiff(hashTree(join(src, 'sessions')), restored)).toEqual([]);
      };
      if (!error && mode === 'loop') {
        // A loop swaps every bucket out and back: when the final re-walk met each one back in place (a descheduled
        // flipper, beside a CPU burner), the restore may finish. Then each file went through its bucket's handle into
        // the bucket itself, wherever its name was at that moment: all of them are in place, nothing is left over.
        restoredAll();
        expect(listed(opts.stagingParent)).toEqual([]);
        expect(listed(opts.journalDir)).toEqual([]);
        return;
      }
      // A swap left in place ('once') is always noticed: it stops with one plain sentence, undoing what it had put back.
      expect(error, 'a restore racing a flipper cannot succeed unnoticed').not.toBeNull();
      expect(error!.message).toMatch(/(was replaced while the restore was running|is not a plain directory)/);
      expect(error!.message).not.toMatch(/\n/);
      if (listed(opts.journalDir).length) {
        // A rollback step the flipper kept from succeeding is finished by the next settle (now the flipper is gone).
        const s = await settlePendingRestores({
          journalDir: opts.journalDir,
          stagingParent: opts.stagingParent,
          rootsFor: async () => opts.roots,
          mode: 'rollback',
        });
        expect(s.map((x) => x.outcome)).toEqual(['rolledBack']);
      }
      expect(treeDiff(before, hashTree(agentDir))).toEqual([]);
      expect(listed(opts.stagingParent)).toEqual([]);
      expect(listed(opts.journalDir)).toEqual([]);
      expect(existsSync(first)).toBe(false);

      // Without the flipper the same backup restores completely.
      const r = await restoreArchive(opts);
      expect(r.restored).toHaveLength(BUCKETS * PER_BUCKET);
      restoredAll();
    },
    120_000,
  );
});
