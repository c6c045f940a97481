// The compaction proof compares value types, not only bytes (#26): integer 1
// and text '1', text '1' and blob X'31', real 1.5 and text '1.5', NULL and
// '' all read alike once cast to bytes, and a copy that changed one into the
// other is not the same content. Checked on compareWith (the proof
// compactDatabase uses) and contentProof (the sha256 proof the tests use),
// in a rowid table and a WITHOUT ROWID one, and through compactDatabase: a
// copy changed that way between VACUUM INTO and the proof (at the
// `compact:copy:written` crash point, in-process) is refused and the
// original kept byte for byte.

import Database from 'better-sqlite3';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactDatabase } from '../../src/engine/cleanup/compact.js';
import { listCompactions } from '../../src/engine/cleanup/compact-journal.js';
import { compareWith, contentProof, proofDifference } from '../../src/engine/cleanup/compact-proof.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
afterEach(() => {
  atCrashPoints(null);
  for (const t of envs.splice(0)) t.cleanup();
});

function dir(): { t: TempEnv; dir: string } {
  const t = makeTempEnv('cleanerx-proof-types-');
  envs.push(t);
  const d = join(t.root, 'db');
  mkdirSync(d);
  return { t, dir: d };
}

/** Pairs of SQL literals whose values cast to the same bytes but differ in type. */
const SAME_BYTES: [string, string][] = [
  ['1', "'1'"],
  ["'1'", "X'31'"],
  ['1', "X'31'"],
  ['1.5', "'1.5'"],
  ['NULL', "''"],
  ["''", "X''"],
  ['0', "'0'"],
  ['-7', "'-7'"],
];

/** A table without declared types (no affinity: every value keeps the type it was written with), rowid and WITHOUT ROWID. */
function make(path: string, tv: string, kv: string): void {
  const d = new Database(path);
  d.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v, w TEXT); CREATE TABLE k (x TEXT PRIMARY KEY, v) WITHOUT ROWID;
    INSERT INTO t VALUES (1, ${tv}, 'a'), (2, 2, 'b');
    INSERT INTO k VALUES ('p', ${kv}), ('q', 2);`);
  d.close();
}

function compare(a: string, b: string): string | null {
  const src = new Database(a, { readonly: true });
  try {
    return compareWith(src, b).difference;
  } finally {
    src.close();
  }
}

function proofDiff(a: string, b: string): string | null {
  const open = (p: string) => new Database(p, { readonly: true });
  const x = open(a);
  const y = open(b);
  try {
    return proofDifference(contentProof(x), contentProof(y));
  } finally {
    x.close();
    y.close();
  }
}

describe('a value of another type with the same bytes is a different value', () => {
  it('the same values, the same types: no difference (the control)', () => {
    const { dir: d } = dir();
    for (const [i, [x]] of SAME_BYTES.entries()) {
      make(join(d, `a${i}.db`), x, x);
      make(join(d, `b${i}.db`), x, x);
      expect(compare(join(d, `a${i}.db`), join(d, `b${i}.db`)), x).toBeNull();
      expect(proofDiff(join(d, `a${i}.db`), join(d, `b${i}.db`)), x).toBeNull();
    }
  });

  for (const [x, y] of SAME_BYTES) {
    it(`${x} vs ${y}: compareWith and the sha256 proof both find it, in a rowid table and a WITHOUT ROWID one`, () => {
      const { dir: d } = dir();
      const a = join(d, 'a.db');
      make(a, x, x);
      for (const [table, tv, kv] of [
        ['t', y, x],
        ['k', x, y],
      ] as const) {
        const b = join(d, `b-${table}.db`);
        make(b, tv, kv);
        expect(compare(a, b), `${table}: ${x} vs ${y}`).toBe(`1 rows of table ${table} differ`);
        expect(compare(b, a), `${table}: ${y} vs ${x}`).toBe(`1 rows of table ${table} differ`);
        expect(proofDiff(a, b), `${table}: ${x} vs ${y}`).toBe(`the rows of table ${table} differ`);
      }
    });
  }
});

describe('compactDatabase with a copy whose value changed type', () => {
  it("integer 1 turned into text '1' in the copy before its proof: refused, the original kept byte for byte, the copy removed", async () => {
    const { t, dir: d } = dir();
    const db = join(d, 'store.db');
    const w = new Database(db);
    w.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v, body TEXT)');
    const ins = w.prepare('INSERT INTO t (v, body) VALUES (?, ?)');
    w.transaction(() => {
      for (let i = 0; i < 400; i++) ins.run(BigInt(i % 7), 'x'.repeat(900)); // integers (a JS number binds as a real)
    })();
    // Free pages to compact.
    w.exec('DELETE FROM t WHERE id > 200');
    w.close();
    const before = hashTree(d);
    let changed = false;
    atCrashPoints((name) => {
      if (name !== 'compact:copy:written') return;
      const siblings = readdirSync(d).filter((n) => n.includes('.cleanerx-compact-'));
      expect(siblings).toHaveLength(1);
      const c = new Database(join(d, siblings[0]!, 'compacted'));
      try {
        const r = c.prepare("UPDATE t SET v = '1' WHERE id = (SELECT min(id) FROM t WHERE typeof(v) = 'integer' AND v = 1)").run();
        changed = r.changes === 1;
      } finally {
        c.close();
      }
    });
    await expect(compactDatabase({ stateDir: t.env.CLEANERX_STATE_DIR!, dbPath: db, agentStopped: true })).rejects.toThrow(
      /the compacted copy is not the same content: 1 rows of table t differ/,
    );
    expect(changed).toBe(true);
    expect(treeDiff(before, hashTree(d))).toEqual([]);
    const [j] = await listCompactions(t.env.CLEANERX_STATE_DIR!);
    expect(j).toMatchObject({ entry: { step: 'rolledBack' } });
  });
});
