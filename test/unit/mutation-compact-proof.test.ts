// The compaction proofs, rule by rule (#26 item 5: the mutants of
// engine/cleanup/compact-proof.ts). Real SQLite files in a temp dir, made
// by hand: an original and a copy that differs in exactly one way, and
// what contentProof/proofDifference (the sha256 proof) and compareWith (the
// in-SQLite proof compactDatabase uses) say about it. Both proofs must see
// every difference a compaction could introduce, and none where the copy
// holds the same content.

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareWith, contentProof, type ContentProof, proofDifference } from '../../src/engine/cleanup/compact-proof.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let dir: string;
let n = 0;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-proof-rules-');
  dir = join(t.root, 'db');
  mkdirSync(dir);
});
afterEach(() => t.cleanup());

/** A new database file: `pragmas` run before the first table (page size, auto_vacuum and encoding only apply then), then `sql`. */
function mk(sql: string, pragmas: string[] = []): string {
  const p = join(dir, `d${n++}.db`);
  const d = new Database(p);
  for (const x of pragmas) d.pragma(x);
  d.exec(sql);
  d.close();
  return p;
}

function proof(p: string): ContentProof {
  const d = new Database(p, { readonly: true });
  try {
    return contentProof(d);
  } finally {
    d.close();
  }
}

function compare(a: string, b: string): ReturnType<typeof compareWith> {
  const d = new Database(a, { readonly: true });
  try {
    return compareWith(d, b);
  } finally {
    d.close();
  }
}

/** The sha256 proof's verdict and compareWith's on the same pair. */
function both(a: string, b: string): { proof: string | null; compare: string | null } {
  return { proof: proofDifference(proof(a), proof(b)), compare: compare(a, b).difference };
}

describe('values the sha256 proof frames apart', () => {
  // Each pair: the same table, one row, values that a hash of the bare bytes (or of numbers as JS reads them) would run together.
  const cases: [string, string, string][] = [
    ['real 0.0 and real -0.0', 'CREATE TABLE t (v); INSERT INTO t VALUES (0.0)', 'CREATE TABLE t (v); INSERT INTO t VALUES (-0.0)'],
    ['real 1.5 and real 2.5', 'CREATE TABLE t (v); INSERT INTO t VALUES (1.5)', 'CREATE TABLE t (v); INSERT INTO t VALUES (2.5)'],
    ['integer 1 and integer 2', 'CREATE TABLE t (v); INSERT INTO t VALUES (1)', 'CREATE TABLE t (v); INSERT INTO t VALUES (2)'],
    ['integer 1 and real 1.0', 'CREATE TABLE t (v); INSERT INTO t VALUES (1)', 'CREATE TABLE t (v); INSERT INTO t VALUES (1.0)'],
    ["(NULL, 'a') and ('a', NULL)", "CREATE TABLE t (v, w); INSERT INTO t VALUES (NULL, 'a')", "CREATE TABLE t (v, w); INSERT INTO t VALUES ('a', NULL)"],
    ["text 'ab','c' and 'a','bc'", "CREATE TABLE t (v, w); INSERT INTO t VALUES ('ab', 'c')", "CREATE TABLE t (v, w); INSERT INTO t VALUES ('a', 'bc')"],
    [
      "blob X'0102',X'03' and X'01',X'0203'",
      "CREATE TABLE t (v, w); INSERT INTO t VALUES (X'0102', X'03')",
      "CREATE TABLE t (v, w); INSERT INTO t VALUES (X'01', X'0203')",
    ],
    ["text 'a' and text 'b'", "CREATE TABLE t (v); INSERT INTO t VALUES ('a')", "CREATE TABLE t (v); INSERT INTO t VALUES ('b')"],
    ["blob X'01' and blob X'02'", "CREATE TABLE t (v); INSERT INTO t VALUES (X'01')", "CREATE TABLE t (v); INSERT INTO t VALUES (X'02')"],
  ];
  for (const [what, x, y] of cases) {
    it(`${what}: a different row`, () => {
      const a = mk(x);
      const b = mk(y);
      expect(proofDifference(proof(a), proof(b))).toBe('the rows of table t differ');
      expect(proofDifference(proof(a), proof(mk(x)))).toBeNull();
    });
  }

  it('compareWith finds the integer/real, value and blob changes too (0.0 and -0.0 are the same number to SQLite)', () => {
    for (const [, x, y] of cases.slice(1)) expect(compare(mk(x), mk(y)).difference, y).toBe('1 rows of table t differ');
  });
});

describe('contentProof: what it reads', () => {
  it('records the settings a VACUUM must carry over, as SQLite reports them', () => {
    const p = mk('CREATE TABLE t (v)', ['page_size = 8192', 'auto_vacuum = INCREMENTAL', 'encoding = "UTF-16le"', 'user_version = 7', 'application_id = 42']);
    expect(proof(p).settings).toEqual({ page_size: '8192', auto_vacuum: '2', user_version: '7', application_id: '42', encoding: 'UTF-16le' });
  });

  it('hashes every ordinary table and the shadow tables of a virtual one, never the virtual table or an index, each with its row count', () => {
    const p = mk(`CREATE VIRTUAL TABLE f USING fts5(a); INSERT INTO f VALUES ('one two'), ('three');
      CREATE TABLE t (id INTEGER PRIMARY KEY, v); CREATE INDEX t_v ON t(v); INSERT INTO t (v) VALUES (1), (2), (3);
      CREATE TABLE k (a, b, c, PRIMARY KEY (b, a)) WITHOUT ROWID; INSERT INTO k VALUES (1, 2, NULL), (3, 1, 'x');`);
    const pr = proof(p);
    const d = new Database(p, { readonly: true });
    const count = (name: string): number => d.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number;
    const names = ['f_config', 'f_content', 'f_data', 'f_docsize', 'f_idx', 'k', 't'];
    expect(pr.tables.map((x) => ({ name: x.name, rows: x.rows }))).toEqual(names.map((name) => ({ name, rows: count(name) })));
    d.close();
    expect(pr.tables.find((x) => x.name === 't')!.rows).toBe(3);
    expect(pr.tables.find((x) => x.name === 'k')!.rows).toBe(2);
    for (const x of pr.tables) expect(x.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a changed schema, and an equal database (the control), through both proofs and through compareWith', () => {
    const sql = 'CREATE TABLE t (id INTEGER PRIMARY KEY, v); INSERT INTO t VALUES (1, 1)';
    const a = mk(sql);
    expect(both(a, mk(sql))).toEqual({ proof: null, compare: null });
    expect(both(a, mk(`${sql}; CREATE INDEX t_v ON t(v)`))).toEqual({ proof: 'the schema differs', compare: 'the schema differs' });
    expect(compare(a, mk(`${sql}; CREATE INDEX t_v ON t(v)`)).tables).toEqual([]);
  });
});

describe('names that need quoting', () => {
  it('a table and columns whose names hold a double quote are read and compared', () => {
    const sql = `CREATE TABLE "a""b" ("c""d" INTEGER PRIMARY KEY, v); CREATE TABLE "k""1" ("x""y" TEXT PRIMARY KEY, v) WITHOUT ROWID;
      INSERT INTO "a""b" VALUES (1, 'p'); INSERT INTO "k""1" VALUES ('q', NULL)`;
    const a = mk(sql);
    expect(both(a, mk(sql))).toEqual({ proof: null, compare: null });
    expect(proof(a).tables.map((x) => [x.name, x.rows])).toEqual([
      ['a"b', 1],
      ['k"1', 1],
    ]);
    expect(both(a, mk(`${sql}; UPDATE "k""1" SET v = 2`))).toEqual({ proof: 'the rows of table k"1 differ', compare: '1 rows of table k"1 differ' });
  });
});

describe('which tables have a rowid', () => {
  it('WITHOUT ROWID written with extra spaces and trailing blanks (SQLite keeps them in the schema) is read by its key', () => {
    const sql = "CREATE TABLE k (v, x TEXT PRIMARY KEY)   WITHOUT   ROWID  ; INSERT INTO k VALUES (NULL, 'p'), (2, 'q')";
    const a = mk(sql);
    expect(both(a, mk(sql))).toEqual({ proof: null, compare: null });
    expect(compare(a, mk(sql)).tables).toEqual([{ name: 'k', rows: 2 }]);
    const b = mk("CREATE TABLE k (v, x TEXT PRIMARY KEY)   WITHOUT   ROWID  ; INSERT INTO k VALUES (NULL, 'p'), (3, 'q')");
    expect(both(a, b)).toEqual({ proof: 'the rows of table k differ', compare: '1 rows of table k differ' });
  });

  it('a rowid table whose column default says WITHOUT ROWID is still compared by rowid: rows that swapped rowids differ', () => {
    const table = "CREATE TABLE z (x TEXT PRIMARY KEY, note DEFAULT 'WITHOUT ROWID');";
    const a = mk(`${table} INSERT INTO z (rowid, x) VALUES (1, 'p'), (2, 'q')`);
    const b = mk(`${table} INSERT INTO z (rowid, x) VALUES (1, 'q'), (2, 'p')`);
    expect(both(a, b)).toEqual({ proof: 'the rows of table z differ', compare: '2 rows of table z differ' });
  });

  it('a table whose column default says CREATE VIRTUAL is an ordinary table and is compared', () => {
    const table = "CREATE TABLE v (id INTEGER PRIMARY KEY, note DEFAULT 'CREATE VIRTUAL x', w);";
    const a = mk(`${table} INSERT INTO v (id, w) VALUES (1, 'a')`);
    const b = mk(`${table} INSERT INTO v (id, w) VALUES (1, 'b')`);
    expect(both(a, b)).toEqual({ proof: 'the rows of table v differ', compare: '1 rows of table v differ' });
  });
});

describe('proofDifference: the first difference, named', () => {
  const base = (): ContentProof => ({
    schemaSha256: 's',
    settings: { page_size: '4096', user_version: '0' },
    tables: [
      { name: 'a', rows: 1, sha256: 'x' },
      { name: 'b', rows: 2, sha256: 'y' },
    ],
  });
  it('each kind of difference, in order; equal proofs are no difference', () => {
    expect(proofDifference(base(), base())).toBeNull();
    expect(proofDifference(base(), { ...base(), schemaSha256: 't' })).toBe('the schema differs');
    expect(proofDifference(base(), { ...base(), settings: { page_size: '4096', user_version: '3' } })).toBe('user_version is 3 instead of 0');
    expect(proofDifference(base(), { ...base(), tables: base().tables.slice(0, 1) })).toBe('1 tables instead of 2');
    const other = (i: number, change: object): ContentProof => {
      const p = base();
      p.tables[i] = { ...p.tables[i]!, ...change };
      return p;
    };
    expect(proofDifference(base(), other(1, { name: 'c' }))).toBe('table c instead of b');
    expect(proofDifference(base(), other(1, { rows: 5 }))).toBe('table b has 5 rows instead of 2');
    expect(proofDifference(base(), other(0, { sha256: 'z' }))).toBe('the rows of table a differ');
    expect(proofDifference(base(), other(1, { sha256: 'z' }))).toBe('the rows of table b differ');
  });
});

describe('compareWith: settings, counts, keys, and the attachment', () => {
  const sql = "CREATE TABLE t (id INTEGER PRIMARY KEY, v); INSERT INTO t (v) VALUES (1), ('a'), (NULL)";

  it('names each setting that differs, with both values', () => {
    const a = mk(sql);
    expect(compare(a, mk(sql, ['page_size = 8192']))).toEqual({ tables: [], difference: 'page_size is 8192 instead of 4096' });
    expect(compare(a, mk(sql, ['auto_vacuum = FULL']))).toEqual({ tables: [], difference: 'auto_vacuum is 1 instead of 0' });
    expect(compare(a, mk(sql, ['user_version = 5']))).toEqual({ tables: [], difference: 'user_version is 5 instead of 0' });
    expect(compare(a, mk(sql, ['application_id = 9']))).toEqual({ tables: [], difference: 'application_id is 9 instead of 0' });
  });

  it('an extra row in the copy, and a missing one, are named by the counts; the tables already compared are returned', () => {
    const two = "CREATE TABLE a (x); INSERT INTO a VALUES (1), (2); CREATE TABLE t (id INTEGER PRIMARY KEY, v); INSERT INTO t (v) VALUES (1), ('a'), (NULL)";
    const a = mk(two);
    expect(compare(a, mk(`${two}; INSERT INTO t (v) VALUES (4)`))).toEqual({ tables: [{ name: 'a', rows: 2 }], difference: 'table t has 4 rows instead of 3' });
    expect(compare(a, mk(`${two}; DELETE FROM t WHERE id = 1`))).toEqual({ tables: [{ name: 'a', rows: 2 }], difference: 'table t has 2 rows instead of 3' });
    expect(compare(a, mk(`${two}; UPDATE t SET v = 2 WHERE id = 1`))).toEqual({ tables: [{ name: 'a', rows: 2 }], difference: '1 rows of table t differ' });
    expect(compare(a, mk(two))).toEqual({
      tables: [
        { name: 'a', rows: 2 },
        { name: 't', rows: 3 },
      ],
      difference: null,
    });
  });

  it('a WITHOUT ROWID table is joined on its whole key, and NULLs outside the key (even in its first column) match', () => {
    const k = "CREATE TABLE k (v, a, b, PRIMARY KEY (a, b)) WITHOUT ROWID; INSERT INTO k VALUES (NULL, 1, 'x'), (NULL, 1, 'y'), (3, 2, 'x')";
    const a = mk(k);
    expect(compare(a, mk(k))).toEqual({ tables: [{ name: 'k', rows: 3 }], difference: null });
    expect(compare(a, mk(k.replace("(3, 2, 'x')", "(4, 2, 'x')"))).difference).toBe('1 rows of table k differ');
  });

  it('the virtual table is skipped, however its CREATE was spelled (SQLite normalizes the first two keywords), its shadow tables compared', () => {
    const f = "  create   virtual  table f USING fts5(a); INSERT INTO f VALUES ('one two'), ('three')";
    const a = mk(f);
    expect(compare(a, mk(f)).tables.map((x) => x.name)).toEqual(['f_config', 'f_content', 'f_data', 'f_docsize', 'f_idx']);
  });

  it('detaches the copy after a comparison, and after a difference: the same connection compares again', () => {
    const a = mk(sql);
    const d = new Database(a, { readonly: true });
    try {
      expect(compareWith(d, mk(sql)).difference).toBeNull();
      expect(compareWith(d, mk(sql, ['user_version = 5'])).difference).toBe('user_version is 5 instead of 0');
      expect(compareWith(d, mk(sql)).difference).toBeNull();
      expect(d.prepare('SELECT name FROM pragma_database_list').pluck().all()).toEqual(['main']);
    } finally {
      d.close();
    }
  });

  it('the copy is not left locked by a connection in EXCLUSIVE mode: another connection can take it while the comparison runs', () => {
    const a = mk(sql);
    const b = mk(sql);
    const d = new Database(a);
    d.pragma('locking_mode = EXCLUSIVE');
    let locked: boolean | null = null;
    // After compareWith's first read of the copy (its row count), another connection tries for an exclusive lock on it.
    const spy = new Proxy(d, {
      get(target, prop) {
        if (prop !== 'prepare') return Reflect.get(target, prop, target);
        return (text: string) => {
          const st = target.prepare(text);
          if (!text.startsWith('SELECT count(*) FROM cmp.')) return st;
          return new Proxy(st, {
            get(s, q) {
              if (q !== 'pluck') return Reflect.get(s, q, s);
              return () => {
                const pl = s.pluck();
                const value = pl.get();
                const other = new Database(b, { timeout: 0 });
                try {
                  other.exec('BEGIN EXCLUSIVE');
                  other.exec('ROLLBACK');
                  locked = false;
                } catch {
                  locked = true;
                } finally {
                  other.close();
                }
                return { get: () => value };
              };
            },
          });
        };
      },
    });
    try {
      expect(compareWith(spy, b).difference).toBeNull();
    } finally {
      d.close();
    }
    expect(locked).toBe(false);
  });
});
