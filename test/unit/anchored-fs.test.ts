// Directory handles that a rename or a symlink swap cannot redirect.

import {
  closeSync,
  constants as C,
  fstatSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  existsSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anchoredSupported,
  linkAt,
  lstatAt,
  mkdirAt,
  openChildDir,
  openDirPath,
  openFileAt,
  openRootDir,
  openTrustedDir,
  readdirAt,
  renameAt,
  rmdirAt,
  unlinkAt,
  type DirHandle,
} from '../../src/engine/host/anchored-fs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
const handles: DirHandle[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) h.close();
  for (const t of envs.splice(0)) t.cleanup();
});

function setUp(): { home: string; outside: string } {
  const t = makeTempEnv('cleanerx-anchored-');
  envs.push(t);
  const home = t.env.HOME!;
  const outside = join(t.root, 'outside');
  mkdirSync(join(home, 'a', 'b'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(home, 'a', 'b', 'f'), 'inside');
  writeFileSync(join(outside, 'f'), 'outside');
  return { home, outside };
}
const keep = (h: DirHandle): DirHandle => (handles.push(h), h);

describe('anchored-fs', () => {
  it('is supported on this Linux machine', () => {
    expect(anchoredSupported()).toBe(process.platform === 'linux');
  });

  it('opens a path component by component and refuses a symbolic link anywhere on it', () => {
    const { home, outside } = setUp();
    const b = keep(openRootDir(join(home, 'a', 'b')));
    expect(readdirAt(b)).toEqual(['f']);
    expect(fstatSync(b.fd).ino).toBe(lstatSync(join(home, 'a', 'b')).ino);
    symlinkSync(outside, join(home, 'link'));
    expect(() => openRootDir(join(home, 'link'))).toThrow(/symbolic link/);
    expect(() => openRootDir(join(home, 'link', 'x'))).toThrow(/symbolic link/);
    expect(() => openRootDir(join(home, 'a', 'b', 'f'))).toThrow(/not a directory/);
    expect(() => openRootDir('relative/path')).toThrow(/relative/);
    expect(() => openRootDir(`${home}/a/../a`)).toThrow(/"\.\."/);
  });

  it('a trusted path follows only links root made in root-only directories (e.g. /bin → usr/bin), never as root', () => {
    const { home, outside } = setUp();
    symlinkSync(outside, join(home, 'link'));
    expect(() => openTrustedDir(join(home, 'link'))).toThrow(/symbolic link/);
    const h = keep(openTrustedDir(join(home, 'a', 'b')));
    expect(readdirAt(h)).toEqual(['f']);
    if (!lstatSync('/bin').isSymbolicLink()) return; // not a merged-/usr system: nothing more to show
    // The source through jiti, not dist/ (a mutation run's sandbox has no build, and the source is what it mutates),
    // loaded before the switch to nobody, who may not read a private sandbox: the check runs at the call.
    const load = `const m = await import(${JSON.stringify(new URL('../../src/engine/host/anchored-fs.ts', import.meta.url).href)}); const { fstatSync } = await import('node:fs');`;
    const drop = process.geteuid?.() === 0 ? 'process.setgid(65534); process.setuid(65534);' : '';
    const probe = `${load} ${drop} const h = (m.default ?? m).openTrustedDir('/bin'); process.stdout.write(String(fstatSync(h.fd).ino));`;
    const r = spawnSync(process.execPath, ['--import', 'jiti/register', '--input-type=module', '-e', probe], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(Number(r.stdout)).toBe(lstatSync('/usr/bin').ino);
    if (process.geteuid?.() === 0) expect(() => openTrustedDir('/bin')).toThrow(/\/bin is a symbolic link/);
  });

  it('refuses names that are not a single plain component', () => {
    const { home } = setUp();
    const a = keep(openRootDir(join(home, 'a')));
    for (const bad of ['..', '.', 'b/f', '', 'x\0y']) expect(() => openChildDir(a, bad)).toThrow(/single plain name/);
    expect(() => unlinkAt(a, '../escape')).toThrow(/single plain name/);
    expect(() => openDirPath(a, ['b', '..'])).toThrow(/single plain name/);
  });

  it('keeps pointing at the same directory after the path is renamed and swapped for a symlink', () => {
    const { home, outside } = setUp();
    const b = keep(openRootDir(join(home, 'a', 'b')));
    renameSync(join(home, 'a', 'b'), join(home, 'a', 'moved'));
    symlinkSync(outside, join(home, 'a', 'b'));
    expect(lstatAt(b, 'f')!.isFile()).toBe(true);
    unlinkAt(b, 'f');
    expect(existsSync(join(home, 'a', 'moved', 'f'))).toBe(false);
    expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('outside');
    // The swapped-in link is refused when reopened by name.
    const a = keep(openRootDir(join(home, 'a')));
    expect(() => openChildDir(a, 'b')).toThrow(/symbolic link/);
  });

  it('keeps pointing at the same directory under a renameat2 exchange with a symlink', () => {
    const { home, outside } = setUp();
    const b = keep(openRootDir(join(home, 'a', 'b')));
    const link = join(home, 'a', 'swap');
    symlinkSync(outside, link);
    const r = spawnSync('python3', [
      '-c',
      'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(0 if l.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)==0 else ctypes.get_errno())',
      join(home, 'a', 'b'),
      link,
    ]);
    expect(r.status).toBe(0);
    expect(lstatSync(join(home, 'a', 'b')).isSymbolicLink()).toBe(true);
    unlinkAt(b, 'f');
    expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('outside');
    expect(readdirSync(join(home, 'a', 'swap'))).toEqual([]);
  });

  it('creates, renames, links without replacing, and removes through handles', () => {
    const { home } = setUp();
    const a = keep(openRootDir(join(home, 'a')));
    mkdirAt(a, 'new', 0o700);
    const n = keep(openChildDir(a, 'new'));
    expect(lstatSync(join(home, 'a', 'new')).mode & 0o777).toBe(0o700);
    const fd = openFileAt(n, 'x.partial', C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o640);
    writeSync(fd, 'data');
    closeSync(fd);
    linkAt(n, 'x.partial', n, 'x');
    expect(() => linkAt(n, 'x.partial', n, 'x')).toThrow(/already exists/);
    unlinkAt(n, 'x.partial');
    const b = keep(openDirPath(a, ['b']));
    renameAt(n, 'x', b, 'g');
    expect(readFileSync(join(home, 'a', 'b', 'g'), 'utf8')).toBe('data');
    rmdirAt(a, 'new');
    expect(existsSync(join(home, 'a', 'new'))).toBe(false);
    expect(lstatAt(a, 'new')).toBeNull();
  });

  it('never opens a file through a link and never blocks on a FIFO', () => {
    const { home, outside } = setUp();
    const a = keep(openRootDir(join(home, 'a')));
    symlinkSync(join(outside, 'f'), join(home, 'a', 'l'));
    expect(() => openFileAt(a, 'l', C.O_RDONLY)).toThrow(/symbolic link/);
    expect(() => openFileAt(a, 'l', C.O_WRONLY | C.O_TRUNC)).toThrow(/symbolic link/);
    expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('outside');
    mkfifoSync(join(home, 'a', 'fifo'));
    const fd = openFileAt(a, 'fifo', C.O_RDONLY);
    expect(fstatSync(fd).isFIFO()).toBe(true);
    closeSync(fd);
    // A link is unlinked itself, its target untouched.
    unlinkAt(a, 'l');
    expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('outside');
  });

  it('refuses a closed handle', () => {
    const { home } = setUp();
    const a = openRootDir(join(home, 'a'));
    a.close();
    expect(() => lstatAt(a, 'b')).toThrow(/already closed/);
  });
});

function mkfifoSync(p: string): void {
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
}
