// Path safety through held handles (#26 item 5: the mutants of
// engine/cleanup/path-safety.ts the refusal tests leave): when revalidate
// takes its fast path (one lstat through the parent's handle, no path
// resolved) and when it must not, how ParentHandles caps, drops, closes and
// vouches for its handles, that every handle removeAnchored and observePath
// open is closed again on every way out (the count of /proc/self/fd), and
// the path-by-path observation used where handles cannot anchor. Mounts
// (a tmpfs, a bind mount of a file) skip, saying so, where mount(2) is not
// permitted.

import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  captureIdentity,
  type FileIdentity,
  observeByPath,
  observePath,
  ParentHandles,
  removeAnchored,
  revalidate,
  type SafetyContext,
} from '../../src/engine/cleanup/path-safety.js';
import { fileRevision } from '../../src/engine/inventory/revision.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { tmpfsMountRefusal } from '../helpers/tmpfs-probe.js';

let t: TempEnv;
let home: string;
let ctx: SafetyContext;
const mounts: string[] = [];
const handles: ParentHandles[] = [];
beforeEach(() => {
  t = makeTempEnv('cleanerx-path-handles-');
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
const needsMount = (c: { skip: (why: string) => void }): void => {
  if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
};
function mount(args: string[], on: string): void {
  const r = spawnSync('mount', [...args, on], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  mounts.push(on);
}
const tmpfs = (dir: string): void => {
  mkdirSync(dir, { recursive: true });
  mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs'], dir);
};

const write = (p: string, s = 'x'): string => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, s);
  return p;
};
const at = (rel: string): string => join(home, rel);
const held = (max?: number): ParentHandles => {
  const p = new ParentHandles(max);
  handles.push(p);
  return p;
};
/** The descriptors this process has open: a handle left open after a call shows as one more. */
const openFds = (): number => readdirSync('/proc/self/fd').length;
/** A handle's close() makes it refuse any further use. */
const isClosed = (h: { at(name: string): string }): boolean => {
  try {
    h.at('x');
    return false;
  } catch (e) {
    return /already closed/.test((e as Error).message);
  }
};
/** The identity of `f` as a capture would have recorded it, whatever the rules say of it now. */
const identityOf = (f: string): FileIdentity => {
  const st = lstatSync(f);
  return { path: f, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, revision: fileRevision(f, st) };
};

describe('revalidate through held parents', () => {
  /** The paths lstat'ed while revalidate ran: the fast path asks only through handles. */
  const lstatsOf = async (id: FileIdentity, c: SafetyContext, parents: ParentHandles): Promise<string[]> =>
    (await lstatsDuring(async () => revalidate(id, c, parents))).paths;
  const throughHandlesOnly = (paths: string[], name: string): void => {
    expect(paths.filter((p) => !p.startsWith('/proc/self/fd/'))).toEqual([]);
    expect(paths.at(-1)).toMatch(new RegExp(`^/proc/self/fd/\\d+/${name}$`));
  };

  it('an unchanged file: one lstat through the parent handle, no path resolved again', async () => {
    const f = write(at('sessions/b/a'), 'hello');
    const id = captureIdentity(f, ctx);
    const parents = held();
    throughHandlesOnly(await lstatsOf(id, ctx, parents), 'a');
    // The handle is kept: the next file asks nothing but its own name.
    const g = write(at('sessions/b/g'));
    expect(await lstatsOf(captureIdentity(g, ctx), ctx, parents)).toEqual([expect.stringMatching(/^\/proc\/self\/fd\/\d+\/g$/)]);
  });

  it('a file below the second root: the fast path still', async () => {
    const other = join(t.root, 'other');
    const f = write(join(other, 'a'));
    const c2 = { ...ctx, roots: [home, other] };
    throughHandlesOnly(await lstatsOf(captureIdentity(f, c2), c2, held()), 'a');
  });

  it('a changed file, a directory: the full walk, which words the refusal', async () => {
    const f = write(at('sessions/a'), 'hello');
    const id = captureIdentity(f, ctx);
    utimesSync(f, id.mtimeMs / 1000 + 7, id.mtimeMs / 1000 + 7);
    const parents = held();
    await expect(lstatsOf(id, ctx, parents)).rejects.toThrow(`Target changed after scan: ${f}.`);
    const d = at('sessions/d');
    write(join(d, 'x'));
    const paths = await lstatsOf(captureIdentity(d, ctx), ctx, parents);
    expect(paths).toContain(home);
  });

  it('with no owner check (uid -1), a file of another user takes the fast path; with one, it is refused', async () => {
    const f = write(at('sessions/theirs'));
    chownSync(f, 4242, 4242);
    const anyone = { ...ctx, uid: -1 };
    const id = captureIdentity(f, anyone);
    throughHandlesOnly(await lstatsOf(id, anyone, held()), 'theirs');
    expect(() => revalidate(id, ctx, held())).toThrow(/belongs to another user/);
  });

  it('a name the handle cannot look up: the full walk says why', () => {
    write(at('sessions/a'));
    const long = at(`sessions/${'n'.repeat(300)}`);
    const id: FileIdentity = { ...identityOf(at('sessions/a')), path: long };
    expect(() => revalidate(id, ctx, held())).toThrow(`${long} cannot be checked (ENAMETOOLONG).`);
  });

  it('a file bind-mounted from another filesystem, as it would have been captured: refused', (c) => {
    needsMount(c);
    tmpfs(join(t.root, 'mnt'));
    const src = write(join(t.root, 'mnt', 'src'), 'elsewhere');
    const f = write(at('sessions/a'));
    mount(['--bind', src], f);
    expect(lstatSync(f).dev).not.toBe(lstatSync(home).dev);
    expect(() => revalidate(identityOf(f), ctx, held())).toThrow(`${f} is on another filesystem than ${home}.`);
  });
});

describe('ParentHandles', () => {
  const dirs = (...names: string[]): string[] =>
    names.map((n) => {
      mkdirSync(at(`sessions/${n}`), { recursive: true });
      return at(`sessions/${n}`);
    });

  it('holds up to its cap; the handle past it closes every held one, and those are opened afresh', () => {
    const [a, b, c] = dirs('a', 'b', 'c');
    const p = held(2);
    const ha = p.get(a!, home)!;
    const hb = p.get(b!, home)!;
    expect([isClosed(ha.h), isClosed(hb.h)]).toEqual([false, false]);
    expect(p.get(a!, home)).toBe(ha);
    const hc = p.get(c!, home)!;
    expect([isClosed(ha.h), isClosed(hb.h), isClosed(hc.h)]).toEqual([true, true, false]);
    const again = p.get(a!, home)!;
    expect(again.h).not.toBe(ha.h);
    expect(isClosed(again.h)).toBe(false);
    expect(p.get(c!, home)).toBe(hc);
  });

  it('close() closes every held handle and forgets them', () => {
    const [a, b] = dirs('a', 'b');
    const p = held();
    const ha = p.get(a!, home)!;
    const hb = p.get(b!, home)!;
    p.close();
    expect([isClosed(ha.h), isClosed(hb.h)]).toEqual([true, true]);
    expect(p.get(a!, home)!.h).not.toBe(ha.h);
  });

  it('a handle dropped because its directory moved is closed', () => {
    const [a] = dirs('a');
    const p = held();
    const first = p.get(a!, home)!;
    renameSync(a!, at('sessions/a.moved'));
    expect(p.get(a!, home)).toBeNull();
    expect(isClosed(first.h)).toBe(true);
  });

  it('the root itself, and never a path that only starts like the root', () => {
    const root = join(t.root, 'r');
    mkdirSync(join(root, 'a'), { recursive: true });
    mkdirSync(`${root}Xa`);
    const p = held();
    const r = p.get(root, root)!;
    expect(r.h.stat().ino).toBe(lstatSync(root).ino);
    expect(p.get(`${root}Xa`, root)).toBeNull();
  });

  it('null, and no descriptor left open, for a missing root, a link on the way, or a directory on another filesystem', (c) => {
    const p = held();
    const before = openFds();
    expect(p.get(join(t.root, 'none', 'a'), join(t.root, 'none'))).toBeNull();
    mkdirSync(join(t.root, 'real'));
    symlinkSync(join(t.root, 'real'), at('sessions/link'));
    expect(p.get(at('sessions/link'), home)).toBeNull();
    expect(openFds()).toBe(before);
    needsMount(c);
    tmpfs(at('sessions/mnt'));
    const inMount = join(at('sessions/mnt'), 'b');
    mkdirSync(inMount);
    expect(p.get(inMount, home)).toBeNull();
    expect(p.get(at('sessions/mnt'), home)).toBeNull();
    expect(openFds()).toBe(before);
  });

  it("a revalidation's handle serves its removal without asking again, even if the bucket moved in between", () => {
    const f = write(at('sessions/b/a'));
    const id = captureIdentity(f, ctx);
    const p = held();
    revalidate(id, ctx, p);
    renameSync(at('sessions/b'), at('sessions/b.moved'));
    // The same entry (dev/ino checked again) in the directory the handle holds: the one that was planned.
    removeAnchored(id, ctx, undefined, p);
    expect(existsSync(at('sessions/b.moved/a'))).toBe(false);
  });

  it('a vouch for an entry not held for that directory is not handed out', () => {
    const [a, b] = dirs('a', 'b');
    const p = held();
    const ha = p.get(a!, home)!;
    p.vouch(join(b!, 'f'), ha);
    const got = p.forRemoval(join(b!, 'f'), b!, home)!;
    expect(got.h).not.toBe(ha.h);
    expect(got.h.stat().ino).toBe(lstatSync(b!).ino);
  });
});

describe('removeAnchored', () => {
  it('refuses a root itself', () => {
    const id = { ...identityOf(home), path: home };
    expect(() => removeAnchored(id, ctx)).toThrow(`${home} is outside the allowed roots.`);
  });

  it('leaves no descriptor open: a nested file, a tree, a link on the way, a mount inside the tree', (c) => {
    const f = write(at('sessions/b/c/a'));
    const d = at('sessions/tree');
    for (const rel of ['a', 'b/c', 'b/d/e']) write(join(d, rel));
    const fid = captureIdentity(f, ctx);
    const did = captureIdentity(d, ctx);
    const before = openFds();
    removeAnchored(fid, ctx);
    removeAnchored(did, ctx);
    expect([existsSync(f), existsSync(d)]).toEqual([false, false]);
    expect(openFds()).toBe(before);
    const g = write(at('sessions/x/y/g'));
    const gid = captureIdentity(g, ctx);
    renameSync(at('sessions/x/y'), at('sessions/x/y.real'));
    symlinkSync(at('sessions/x/y.real'), at('sessions/x/y'));
    expect(() => removeAnchored(gid, ctx)).toThrow(`${at('sessions/x/y')} is a symbolic link; the removal stopped there.`);
    expect(openFds()).toBe(before);
    needsMount(c);
    const m = at('sessions/m');
    write(join(m, 'deep/sub/keep'));
    const mid = captureIdentity(m, ctx);
    tmpfs(join(m, 'deep', 'sub'));
    write(join(m, 'deep/sub/on-tmpfs'));
    expect(() => removeAnchored(mid, ctx)).toThrow(`${join(m, 'deep')}/sub is on another filesystem; the removal stopped there.`);
    expect(openFds()).toBe(before);
  });

  it('an entry of the tree removed by someone else meanwhile is skipped; the rest goes', () => {
    const d = at('sessions/tree');
    for (const rel of ['a', 'b', 'c']) write(join(d, rel));
    const id = captureIdentity(d, ctx);
    removeAnchored(id, ctx, () => {
      for (const rel of ['a', 'b', 'c']) rmSync(join(d, rel), { force: true });
    });
    expect(existsSync(d)).toBe(false);
  });
});

describe('observePath and observeByPath', () => {
  const uid = (): number => t.ctx.uid;
  const both = (path: string, pre: Parameters<typeof observePath>[1]): [string, string] => [observePath(path, pre, uid()), observeByPath(path, pre, uid())];

  it('give the same answer for every state of a path', () => {
    const d = at('sessions/d');
    write(join(d, 'f'));
    const f = write(at('sessions/file'));
    const id = captureIdentity(d, ctx);
    const fid = captureIdentity(f, ctx);
    expect(both(at('sessions/none/a'), undefined)).toEqual(['missing', 'missing']);
    expect(both(at('sessions/a'), id)).toEqual(['missing', 'missing']);
    expect(both(d, undefined)).toEqual(['intact', 'intact']);
    expect(both(d, id)).toEqual(['intact', 'intact']);
    expect(both(f, fid)).toEqual(['intact', 'intact']);
    expect(both(d, { dev: id.dev, ino: id.ino })).toEqual(['intact', 'intact']);
    expect(both(d, { ...id, ino: id.ino + 1 })).toEqual(['replaced', 'replaced']);
    expect(both(f, { ...fid, dev: fid.dev + 1 })).toEqual(['replaced', 'replaced']);
    write(join(d, 'g'));
    expect(both(d, id)).toEqual(['changed', 'changed']);
    expect(both(d, { dev: id.dev, ino: id.ino })).toEqual(['intact', 'intact']);
    write(at('real/a'));
    symlinkSync(at('real'), at('sessions/link'));
    expect(both(at('sessions/link/a'), undefined)).toEqual(['replaced', 'replaced']);
    expect(both(at('sessions/file/a'), undefined)).toEqual(['replaced', 'replaced']);
    expect(() => observeByPath(at(`sessions/${'n'.repeat(300)}/a`), undefined, uid())).toThrow(/ENAMETOOLONG/);
  });

  it('observePath leaves no descriptor open', () => {
    const d = at('sessions/d');
    write(join(d, 'f'));
    const id = captureIdentity(d, ctx);
    const before = openFds();
    expect([observePath(d, id, uid()), observePath(at('sessions/none'), id, uid())]).toEqual(['intact', 'missing']);
    expect(openFds()).toBe(before);
  });
});
