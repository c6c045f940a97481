// What a backup collects before it writes (#26 item 5: mutants of
// backup/archive.ts, its collectEntries and skippedWarning): the regular
// files in stable order, the directories with no file below them (parents
// first), the special files it skips (each with its kind and its sentence),
// and every directory from the root down, each once — the ancestors of a
// planned path only while they are plain directories. A temp home only.

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { collectEntries, skippedWarning } from '../../src/backup/archive.js';

let dir: string | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function home(): { root: string; roots: { label: string; dir: string }[] } {
  dir = mkdtempSync(join(tmpdir(), 'cleanerx-collect-'));
  const root = join(dir, 'home');
  mkdirSync(root);
  return { root, roots: [{ label: 'pi_home', dir: root }] };
}

/** What collectEntries records of a directory: its mode bits and mtime in ns, read back with lstat. */
function dirAttrs(root: string, rel: string): { root: string; relativePath: string; mode: number; mtimeNs: string } {
  const st = lstatSync(join(root, rel), { bigint: true });
  return { root: 'pi_home', relativePath: rel, mode: Number(st.mode & 0o777n), mtimeNs: String(st.mtimeNs) };
}

it('lists the files in name order, the dirs with no file below them parents first, and every dir from the root down once', async () => {
  const { root, roots } = home();
  // p/ holds d/ (one file) and a file of its own: two counted below p, so p is not empty.
  mkdirSync(join(root, 'xx', 'yy', 'p', 'd'), { recursive: true });
  writeFileSync(join(root, 'xx', 'yy', 'p', 'd', 'f.txt'), '1');
  writeFileSync(join(root, 'xx', 'yy', 'p', 'g.txt'), '2');
  // Names made in reverse order: listed sorted all the same.
  for (const n of ['z9', 'm5', 'c3', 'a1']) writeFileSync(join(root, 'xx', 'yy', 'p', `n-${n}`), n);
  // e/ holds only e/e2/ (empty): both empty, e before e2.
  mkdirSync(join(root, 'xx', 'yy', 'p', 'e', 'e2'), { recursive: true, mode: 0o750 });
  // q/ is a second planned path below the same ancestors: they are listed once.
  mkdirSync(join(root, 'xx', 'yy', 'q'), { mode: 0o700 });
  writeFileSync(join(root, 'xx', 'yy', 'q', 'h.txt'), '3');
  // r/ holds a/ (one file) and one file: a count that subtracted would come to 0 here and call r empty.
  mkdirSync(join(root, 'xx', 'yy', 'r', 'a'), { recursive: true });
  writeFileSync(join(root, 'xx', 'yy', 'r', 'a', 'f'), '4');
  writeFileSync(join(root, 'xx', 'yy', 'r', 'b'), '5');
  const c = await collectEntries([join(root, 'xx', 'yy', 'p'), join(root, 'xx', 'yy', 'q'), join(root, 'xx', 'yy', 'r')], roots);
  const p = (s: string): string => join(root, 'xx', 'yy', s);
  expect(c.files).toEqual(
    ['p/d/f.txt', 'p/g.txt', 'p/n-a1', 'p/n-c3', 'p/n-m5', 'p/n-z9', 'q/h.txt', 'r/a/f', 'r/b'].map((s) => ({ root: 'pi_home', rootDir: root, path: p(s) })),
  );
  expect(c.emptyDirs).toEqual(
    ['xx/yy/p/e', 'xx/yy/p/e/e2'].map((rel) => {
      const { mtimeNs: _, ...rest } = dirAttrs(root, rel);
      return rest;
    }),
  );
  expect(c.dirs).toEqual(
    ['xx', 'xx/yy', 'xx/yy/p', 'xx/yy/p/d', 'xx/yy/p/e', 'xx/yy/p/e/e2', 'xx/yy/q', 'xx/yy/r', 'xx/yy/r/a'].map((rel) => dirAttrs(root, rel)),
  );
  expect(c.skipped).toEqual([]);
});

it('skips a FIFO, a socket and a device with their kind, and says so in one sentence each', async () => {
  const { root, roots } = home();
  const p = join(root, 'p');
  mkdirSync(p);
  execFileSync('mkfifo', [join(p, 'a-fifo')]);
  server = createServer();
  await new Promise<void>((r) => server!.listen(join(p, 'b-socket'), r));
  const device = process.getuid?.() === 0;
  // A device node needs root to make; as another user only the other two are checked.
  if (device) execFileSync('mknod', [join(p, 'c-device'), 'c', '1', '3']);
  writeFileSync(join(p, 'd.txt'), 'x');
  const c = await collectEntries([p], roots);
  const kinds = [['a-fifo', 'fifo'], ['b-socket', 'socket'], ...(device ? [['c-device', 'device']] : [])] as const;
  expect(c.skipped).toEqual(kinds.map(([n, kind]) => ({ root: 'pi_home', relativePath: `p/${n}`, kind, path: join(p, n) })));
  expect(c.files.map((f) => f.path)).toEqual([join(p, 'd.txt')]);
  // Only regular files count: p holds one, so it is not an empty dir.
  expect(c.emptyDirs).toEqual([]);
  expect(c.skipped.map(skippedWarning)).toEqual(
    kinds.map(
      ([n, kind]) =>
        `Not in the backup: ${join(p, n)} is ${{ fifo: 'a FIFO (named pipe)', socket: 'a socket', device: 'a device file' }[kind]}, which holds no data to keep; a restore will not bring it back.`,
    ),
  );
});

it('refuses a link under a planned path and a path under no root', async () => {
  const { root, roots } = home();
  mkdirSync(join(root, 'p'));
  symlinkSync('/etc', join(root, 'p', 'l'));
  await expect(collectEntries([join(root, 'p')], roots)).rejects.toThrow(`${join(root, 'p', 'l')} is a symbolic link; backups never follow links.`);
  await expect(collectEntries([join(dir!, 'elsewhere')], roots)).rejects.toThrow(`${join(dir!, 'elsewhere')} is not under a backup root.`);
  // The root itself is not under the root.
  await expect(collectEntries([root], roots)).rejects.toThrow(`${root} is not under a backup root.`);
});

it('records the ancestors only down to one that is a link, and fails on a path that is gone', async () => {
  const { root, roots } = home();
  mkdirSync(join(root, 'real', 'p'), { recursive: true });
  writeFileSync(join(root, 'real', 'p', 'f'), '1');
  symlinkSync(join(root, 'real'), join(root, 'via'));
  mkdirSync(join(root, 'a'));
  const c = await collectEntries([join(root, 'via', 'p')], roots);
  // 'via' is a link: neither it nor anything on the way past it is an ancestor to recreate; p itself is walked.
  expect(c.dirs.map((d) => d.relativePath)).toEqual(['via/p']);
  // A planned path that vanished: the walk's own error, not one of the ancestor check.
  await expect(collectEntries([join(root, 'a', 'gone', 'p')], roots)).rejects.toMatchObject({ code: 'ENOENT' });
});

it('lists names in JavaScript string order, which is not the byte order a directory listing may come in', async () => {
  const { root, roots } = home();
  // U+FF01 is EF BC 81 in UTF-8 and U+1F600 F0 9F 98 80, but in UTF-16 the emoji's surrogate D83D sorts before FF01.
  const names = ['b', 'a', '\uff01', '\u{1f600}'];
  mkdirSync(join(root, 'names'));
  for (const n of names) writeFileSync(join(root, 'names', n), n);
  const got = await collectEntries([join(root, 'names')], roots);
  expect(got.files.map((f) => f.path)).toEqual(['a', 'b', '\u{1f600}', '\uff01'].map((n) => join(root, 'names', n)));
});
