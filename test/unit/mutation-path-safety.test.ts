// Path safety, refusal by refusal (#26 item 5: the mutants of
// engine/cleanup/path-safety.ts). Real trees in a temp home: every reason
// captureIdentity refuses a target for, every change revalidate notices
// (with and without held parent handles), what removeAnchored removes and
// where it stops, and what observePath says of each state of a path. A
// filesystem boundary is a tmpfs mounted inside the home (skipped, saying
// so, only where mount(2) is not permitted).

import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CaptureMemo,
  captureIdentity,
  type FileIdentity,
  observePath,
  ParentHandles,
  removeAnchored,
  revalidate,
  type SafetyContext,
} from '../../src/engine/cleanup/path-safety.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { tmpfsMountRefusal } from '../helpers/tmpfs-probe.js';

let t: TempEnv;
let home: string;
let ctx: SafetyContext;
const mounts: string[] = [];
const handles: ParentHandles[] = [];
beforeEach(() => {
  t = makeTempEnv('cleanerx-path-rules-');
  home = join(t.root, 'agent');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  ctx = { roots: [home], protectedPaths: [], uid: t.ctx.uid };
});
afterEach(() => {
  for (const h of handles.splice(0)) h.close();
  for (const m of mounts.splice(0).reverse()) spawnSync('umount', [m]).status === 0 || spawnSync('umount', ['-l', m]);
  t.cleanup();
});

let mountWhy: string | null = null;
beforeAll(() => {
  mountWhy = tmpfsMountRefusal();
});
function mount(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  mounts.push(dir);
}

const write = (p: string, s = 'x'): string => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, s);
  return p;
};
const at = (rel: string): string => join(home, rel);
const held = (): ParentHandles => {
  const p = new ParentHandles();
  handles.push(p);
  return p;
};

describe('captureIdentity refuses', () => {
  const refuses = (target: string, msg: string | RegExp, c: SafetyContext = ctx): void => {
    expect(() => captureIdentity(target, c)).toThrow(msg);
  };

  it('a relative path, a path with .. or not in normal form', () => {
    refuses('agent/sessions/a', 'Refusing a relative path: agent/sessions/a');
    refuses(`${home}/sessions/../sessions/a`, `Refusing a path with "..": ${home}/sessions/../sessions/a`);
    refuses(`${home}/sessions//a`, `Refusing a path with "..": ${home}/sessions//a`);
    refuses(`${home}/./sessions/a`, `Refusing a path with "..": ${home}/./sessions/a`);
  });

  it('a path outside every root, the root itself, and a sibling whose name starts like the root', () => {
    write(`${home}2/a`);
    refuses(`${home}2/a`, `${home}2/a is outside the allowed roots.`);
    refuses(home, `${home} is outside the allowed roots.`);
    refuses(join(t.root, 'else'), `${join(t.root, 'else')} is outside the allowed roots.`);
    // The second root is the one that holds it.
    const f = write(at('sessions/a'));
    expect(captureIdentity(f, { ...ctx, roots: [`${home}2`, home] }).path).toBe(f);
  });

  it('a path that is, lies under or holds protected data', () => {
    const f = write(at('sessions/keep/a'));
    const p = at('sessions/keep');
    refuses(f, `${f} is or contains protected data (${p}).`, { ...ctx, protectedPaths: [p] });
    refuses(p, `${p} is or contains protected data (${p}).`, { ...ctx, protectedPaths: [p] });
    refuses(at('sessions'), `${at('sessions')} is or contains protected data (${p}).`, { ...ctx, protectedPaths: ['/elsewhere', p] });
    // A protected sibling whose name starts like the target is not inside it.
    expect(captureIdentity(p, { ...ctx, protectedPaths: [`${p}-other`, `${p}x/a`] }).path).toBe(p);
  });

  it('a root that is a link, a link on the way or at the end, a file on the way', () => {
    const f = write(join(t.root, 'real', 'sessions', 'a'));
    symlinkSync(join(t.root, 'real'), join(t.root, 'linked'));
    refuses(join(t.root, 'linked', 'sessions', 'a'), `The root ${join(t.root, 'linked')} is a symbolic link.`, { ...ctx, roots: [join(t.root, 'linked')] });
    symlinkSync(join(t.root, 'real', 'sessions'), at('via'));
    refuses(at('via/a'), `${at('via')} is a symbolic link.`);
    symlinkSync(f, at('sessions/link'));
    refuses(at('sessions/link'), `${at('sessions/link')} is a symbolic link.`);
    write(at('sessions/file'));
    refuses(at('sessions/file/a'), `${at('sessions/file')} is not a directory.`);
  });

  it('a missing path (with its code), an unreadable one, a link or another owner inside the tree', () => {
    let err: (Error & { code?: string }) | undefined;
    try {
      captureIdentity(at('sessions/none/a'), ctx);
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect([err?.message, err?.code]).toEqual([`${at('sessions/none')} does not exist.`, 'ENOENT']);
    const long = at(`sessions/${'n'.repeat(300)}`);
    refuses(long, `${long} cannot be checked (ENAMETOOLONG).`);
    write(at('sessions/tree/f'));
    symlinkSync('/etc', at('sessions/tree/l'));
    refuses(at('sessions/tree'), /is a symbolic link/);
    const other = write(at('sessions/theirs'));
    chownSync(other, 4242, 4242);
    refuses(other, /belongs to another user/);
  });

  for (const memo of [false, true]) {
    it(`a file on another filesystem, below the root or as the root of the target (memo ${memo})`, (c) => {
      if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
      mount(at('sessions/mnt'));
      const f = write(at('sessions/mnt/a'));
      const m: CaptureMemo | undefined = memo ? new Map() : undefined;
      expect(() => captureIdentity(f, ctx, m)).toThrow(`${at('sessions/mnt')} is on another filesystem than ${home}.`);
      expect(() => captureIdentity(at('sessions/mnt'), ctx, m)).toThrow(`${at('sessions/mnt')} is on another filesystem than ${home}.`);
    });
  }
});

describe('captureIdentity captures', () => {
  it('the entry as lstat sees it, with the revision of its whole tree', () => {
    const f = write(at('sessions/a'), 'hello');
    const st = lstatSync(f);
    const id = captureIdentity(f, ctx);
    expect(id).toEqual({ path: f, dev: st.dev, ino: st.ino, size: 5, mtimeMs: st.mtimeMs, revision: expect.stringMatching(/^[0-9a-f]{64}$/) });
    write(at('sessions/d/one'));
    const a = captureIdentity(at('sessions/d'), ctx).revision;
    write(at('sessions/d/two'));
    expect(captureIdentity(at('sessions/d'), ctx).revision).not.toBe(a);
  });

  it('shares the lstat of the root and of the folders above the targets through the memo, never of a target', () => {
    const a = write(at('sessions/b/a'));
    const memo: CaptureMemo = new Map();
    captureIdentity(a, ctx, memo);
    expect([...memo.keys()]).toEqual([home, at('sessions'), at('sessions/b')]);
    // What the memo says is used: the folder now swapped for a link is still taken for the one seen.
    renameSync(at('sessions/b'), at('sessions/b.real'));
    symlinkSync(at('sessions/b.real'), at('sessions/b'));
    expect(() => captureIdentity(a, ctx)).toThrow(`${at('sessions/b')} is a symbolic link.`);
    expect(captureIdentity(a, ctx, memo).path).toBe(a);
    // The target itself is always looked at again.
    rmSync(at('sessions/b.real/a'));
    expect(() => captureIdentity(a, ctx, memo)).toThrow(`${a} does not exist.`);
  });

  it('with no owner check (uid -1), a file of another user is taken', () => {
    const f = write(at('sessions/theirs'));
    chownSync(f, 4242, 4242);
    expect(captureIdentity(f, { ...ctx, uid: -1 }).path).toBe(f);
  });
});

describe('revalidate', () => {
  /** Changes a file and puts back what the change should not be noticed by. */
  const changes: [string, (f: string, id: FileIdentity) => void, RegExp][] = [
    ['gone', (f) => rmSync(f), /is gone; target changed after scan\./],
    [
      'another inode, same size and time',
      (f, id) => {
        // Made before the old one goes, so it cannot get the freed inode number back (rm then write did, once).
        writeFileSync(`${f}.new`, 'hello');
        utimesSync(`${f}.new`, id.mtimeMs / 1000, id.mtimeMs / 1000);
        renameSync(`${f}.new`, f);
        expect(lstatSync(f).ino).not.toBe(id.ino);
      },
      /^Target changed after scan: /,
    ],
    [
      'another size, same time',
      (f, id) => {
        writeFileSync(f, 'hello, world');
        utimesSync(f, id.mtimeMs / 1000, id.mtimeMs / 1000);
      },
      /^Target changed after scan: /,
    ],
    ['another time', (f, id) => utimesSync(f, id.mtimeMs / 1000 + 5, id.mtimeMs / 1000 + 5), /^Target changed after scan: /],
    ['another mode', (f) => spawnSync('chmod', ['600', f]), /^Target changed after scan: /],
    ['another owner', (f) => chownSync(f, 4242, 4242), /belongs to another user/],
    [
      'a link now',
      (f) => {
        renameSync(f, `${f}.real`);
        symlinkSync(`${f}.real`, f);
      },
      /is a symbolic link\./,
    ],
  ];
  for (const withHandles of [false, true]) {
    for (const [what, change, msg] of changes) {
      it(`a file, ${what}${withHandles ? ' (parents held)' : ''}: refused`, () => {
        const f = write(at('sessions/a'), 'hello');
        spawnSync('chmod', ['644', f]);
        const id = captureIdentity(f, ctx);
        const parents = withHandles ? held() : undefined;
        expect(() => revalidate(id, ctx, parents)).not.toThrow();
        change(f, id);
        expect(() => revalidate(id, ctx, parents)).toThrow(msg);
      });
    }
  }

  it('a tree whose content changed, its own entry the same: refused', () => {
    const d = at('sessions/d');
    write(join(d, 'f'), 'one');
    const st = lstatSync(d);
    const id = captureIdentity(d, ctx);
    revalidate(id, ctx, held());
    writeFileSync(join(d, 'f'), 'two!');
    utimesSync(d, st.atime, st.mtime);
    expect(() => revalidate(id, ctx, held())).toThrow(`Target changed after scan: ${d}.`);
  });

  it('held parents: a file below another root than the first, or outside every root', () => {
    const other = join(t.root, 'other');
    const f = write(join(other, 'a'));
    const c2 = { ...ctx, roots: [home, other] };
    const parents = held();
    const id = captureIdentity(f, c2);
    expect(() => revalidate(id, c2, parents)).not.toThrow();
    expect(() => revalidate(id, ctx, parents)).toThrow(`${f} is outside the allowed roots.`);
  });

  it('held parents: a parent that cannot be opened falls back to the walk, which says why', () => {
    const f = write(at('sessions/b/a'));
    const id = captureIdentity(f, ctx);
    const parents = held();
    rmSync(at('sessions/b'), { recursive: true });
    expect(() => revalidate(id, ctx, parents)).toThrow(`${f} is gone; target changed after scan.`);
  });

  it('held parents: the parent on another filesystem is refused', (c) => {
    if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
    mount(at('sessions/mnt'));
    const f = write(at('sessions/mnt/a'));
    const st = lstatSync(f);
    // The identity as it would have been captured; the mount is what changed since.
    const id: FileIdentity = { path: f, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, revision: 'r' };
    expect(() => revalidate(id, ctx, held())).toThrow(`${at('sessions/mnt')} is on another filesystem than ${home}.`);
  });
});

describe('removeAnchored', () => {
  it('refuses a path outside every root', () => {
    const f = write(join(t.root, 'else', 'a'));
    const id = captureIdentity(f, { ...ctx, roots: [join(t.root, 'else')] });
    expect(() => removeAnchored(id, ctx)).toThrow(`${f} is outside the allowed roots.`);
    expect(existsSync(f)).toBe(true);
  });

  for (const withHandles of [false, true]) {
    const how = withHandles ? ' (parents held)' : '';
    it(`removes a file, and a tree depth first, telling after the first entry only once${how}`, () => {
      const parents = withHandles ? held() : undefined;
      const f = write(at('sessions/a.jsonl'));
      const id = captureIdentity(f, ctx);
      if (parents) revalidate(id, ctx, parents);
      let told = 0;
      removeAnchored(id, ctx, () => told++, parents);
      expect([existsSync(f), told]).toEqual([false, 0]);
      const d = at('sessions/tree');
      for (const rel of ['a', 'b/c', 'b/d/e', 'z']) write(join(d, rel));
      mkdirSync(join(d, 'empty'));
      const tid = captureIdentity(d, ctx);
      removeAnchored(tid, ctx, () => told++, parents);
      expect([existsSync(d), existsSync(at('sessions')), told]).toEqual([false, true, 1]);
    });

    it(`says gone (with its code) and replaced${how}`, () => {
      const parents = withHandles ? held() : undefined;
      const f = write(at('sessions/a.jsonl'));
      const id = captureIdentity(f, ctx);
      // Moved aside, not removed: a new file cannot reuse its inode.
      renameSync(f, join(t.root, 'aside'));
      let err: (Error & { code?: string }) | undefined;
      try {
        removeAnchored(id, ctx, undefined, parents);
      } catch (e) {
        err = e as Error & { code?: string };
      }
      expect([err?.message, err?.code]).toEqual([`${f} is gone; target changed after scan.`, 'ENOENT']);
      write(f, 'other');
      expect(() => removeAnchored(id, ctx, undefined, parents)).toThrow(`${f} was replaced after the scan; nothing more was removed.`);
      expect(existsSync(f)).toBe(true);
    });
  }

  it('a folder on the way swapped for a link: stopped there, with the reason and its code, nothing removed', () => {
    const f = write(at('sessions/b/a.jsonl'));
    const id = captureIdentity(f, ctx);
    renameSync(at('sessions/b'), at('sessions/b.real'));
    symlinkSync(at('sessions/b.real'), at('sessions/b'));
    let err: (Error & { code?: string }) | undefined;
    try {
      removeAnchored(id, ctx);
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect(err?.message).toMatch(/; the removal stopped there\.$/);
    expect(err?.message).not.toMatch(/\.; the removal/);
    expect(err?.code).toBe('ELOOP');
    expect(existsSync(at('sessions/b.real/a.jsonl'))).toBe(true);
  });

  it('the tree itself swapped after its first entry: stopped before removing the name', () => {
    const d = at('sessions/tree');
    write(join(d, 'a'));
    const id = captureIdentity(d, ctx);
    const swap = (): void => {
      renameSync(d, join(t.root, 'tree.aside'));
      mkdirSync(d);
      write(join(d, 'decoy'), 'keep');
    };
    expect(() => removeAnchored(id, ctx, swap)).toThrow(`${at('sessions')}/tree was moved or swapped during the removal; it stopped there.`);
    expect(existsSync(join(d, 'decoy'))).toBe(true);
  });

  it('the tree swapped for a file after its first entry: stopped before removing the name', () => {
    const d = at('sessions/tree');
    write(join(d, 'a'));
    const id = captureIdentity(d, ctx);
    const swap = (): void => {
      renameSync(d, join(t.root, 'tree.aside'));
      write(d, 'keep');
    };
    expect(() => removeAnchored(id, ctx, swap)).toThrow(`${at('sessions')}/tree was moved or swapped during the removal; it stopped there.`);
    expect(existsSync(d)).toBe(true);
  });

  it('the tree removed by someone else after its first entry: stopped, said so', () => {
    const d = at('sessions/tree');
    write(join(d, 'a'));
    const id = captureIdentity(d, ctx);
    expect(() => removeAnchored(id, ctx, () => rmSync(d, { recursive: true }))).toThrow(/was moved or swapped during the removal|no such|gone|ENOENT/i);
  });

  it('a root given with a trailing slash removes the same path', () => {
    const f = write(at('sessions/a'));
    const id = captureIdentity(f, ctx);
    removeAnchored(id, { ...ctx, roots: [`${home}/`] });
    expect(existsSync(f)).toBe(false);
  });

  it('a folder on the way mounted over after the capture: stopped at the mount', (c) => {
    if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
    const f = write(at('sessions/mnt/a'));
    const id = captureIdentity(f, ctx);
    mount(at('sessions/mnt'));
    write(f, 'on the other filesystem');
    expect(() => removeAnchored(id, ctx)).toThrow(`${at('sessions/mnt')} is on another filesystem than ${home}.`);
    expect(existsSync(f)).toBe(true);
  });
});

describe('observePath', () => {
  const uid = (): number => t.ctx.uid;
  it('missing, intact, replaced, changed, each as the identity says', () => {
    expect(observePath(at('sessions/none/a'), undefined, uid())).toBe('missing');
    expect(observePath(at('sessions/a'), undefined, uid())).toBe('missing');
    expect(observePath(`/cleanerx-no-such-entry-${process.pid}`, undefined, uid())).toBe('missing');
    const d = at('sessions/d');
    write(join(d, 'f'));
    expect(observePath(d, undefined, uid())).toBe('intact');
    const id = captureIdentity(d, ctx);
    expect(observePath(d, id, uid())).toBe('intact');
    expect(observePath(d, { dev: id.dev, ino: id.ino }, uid())).toBe('intact');
    write(join(d, 'g'));
    expect(observePath(d, id, uid())).toBe('changed');
    expect(observePath(d, { dev: id.dev, ino: id.ino }, uid())).toBe('intact');
    expect(observePath(d, { dev: id.dev, ino: id.ino + 1, revision: id.revision }, uid())).toBe('replaced');
    expect(observePath(d, { dev: id.dev + 1, ino: id.ino }, uid())).toBe('replaced');
  });

  it('a link or a file on the way is replaced; an error other than those is thrown', () => {
    write(at('real/a'));
    symlinkSync(at('real'), at('sessions/link'));
    expect(observePath(at('sessions/link/a'), undefined, uid())).toBe('replaced');
    write(at('sessions/file'));
    expect(observePath(at('sessions/file/a'), undefined, uid())).toBe('replaced');
    expect(() => observePath(at(`sessions/${'n'.repeat(300)}/a`), undefined, uid())).toThrow();
  });
});
