// walkOwned's revision is the SHA-256 of one metadata line per entry, in walk
// order (names sorted, parents first), however many entries the tree has (the
// lines reach the hash in runs); fileRevision gives a lone file's the same way;
// the WalkRecorder keeps each listing with the stats the walk took.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, type Stats, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SEEN_DIR, SEEN_FILE } from '../../src/engine/core/walk-log.js';
import { fileRevision, WalkRecorder, walkOwned } from '../../src/engine/inventory/revision.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const line = (p: string, st: Stats): string => `${p}\0${st.size}\0${st.mtimeMs}\0${st.dev}\0${st.ino}\0${st.uid}\0${st.mode}\n`;

/** The revision as its definition says, from an independent walk. */
function expected(root: string): string {
  const h = createHash('sha256');
  const visit = (p: string): void => {
    const st = lstatSync(p);
    h.update(line(p, st));
    if (st.isDirectory()) for (const n of readdirSync(p).sort()) visit(`${p}/${n}`);
  };
  visit(root);
  return h.digest('hex');
}

describe('walkOwned revision', () => {
  it('is the hash of every entry line in walk order, for a tree far past one run of lines', () => {
    t = makeTempEnv();
    const root = join(t.root, 'tree');
    for (let d = 0; d < 12; d++) {
      mkdirSync(join(root, `dir-${d}`, 'nested'), { recursive: true });
      for (let f = 0; f < 60; f++) writeFileSync(join(root, `dir-${d}`, f % 2 ? 'nested' : '', `file-${f}-${'x'.repeat(40)}.txt`), 'y'.repeat(f));
    }
    const tree = walkOwned([root], { uid: -1 });
    expect(tree.files).toBe(720);
    expect(tree.revision).toBe(expected(root));
    // Recording changes nothing in the result.
    expect(walkOwned([root], { uid: -1, log: new WalkRecorder() })).toEqual(tree);
  });

  it('fileRevision of a file from its fstat equals walkOwned of that file', () => {
    t = makeTempEnv();
    const f = join(t.root, 'one.jsonl');
    writeFileSync(f, '{"a":1}\n');
    const fd = openSync(f, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      expect(fileRevision(f, fstatSync(fd))).toBe(walkOwned([f], { uid: -1 }).revision);
    } finally {
      closeSync(fd);
    }
  });

  it('the recorder keeps each listing in walk order with the stats the walk took', () => {
    t = makeTempEnv();
    const root = join(t.root, 'tree');
    mkdirSync(join(root, 'b'), { recursive: true });
    writeFileSync(join(root, 'c'), 'x'.repeat(5000));
    writeFileSync(join(root, 'a'), '');
    const log = new WalkRecorder();
    walkOwned([root], { uid: -1, log });
    const slot = log.slotOf(root);
    expect(slot).toBeGreaterThanOrEqual(0);
    const seen = log.listing(slot)!;
    expect(seen.names).toEqual(['a', 'b', 'c']);
    expect([0, 1, 2].map((i) => log.kind(seen.first + i))).toEqual([SEEN_FILE, SEEN_DIR, SEEN_FILE]);
    expect(log.bytes(seen.first + 2)).toBe(lstatSync(join(root, 'c')).blocks * 512);
    expect(log.ino(seen.first + 1)).toBe(lstatSync(join(root, 'b')).ino);
    // The same entry stat'ed again is the same; after a change in the folder it is not.
    expect(log.same(slot, log.add(lstatSync(root)))).toBe(true);
    writeFileSync(join(root, 'd'), 'new');
    expect(log.same(slot, log.add(lstatSync(root)))).toBe(false);
  });
});
