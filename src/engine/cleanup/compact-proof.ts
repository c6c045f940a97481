// The proof that a compaction kept the content: every table's row count and
// a sha256 over its rows in key order (rowid, or the primary key of a
// WITHOUT ROWID table), plus the schema and the settings a VACUUM must
// carry over. Values are framed by type and length, integers read as
// BigInt, so 1 and 1.0, '1' and X'31', or two rows run together never hash
// alike. Virtual tables are not read (their module may be missing); their
// shadow tables are ordinary tables and are hashed.

import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';

interface TableProof {
  name: string;
  rows: number;
  sha256: string;
}

export interface ContentProof {
  schemaSha256: string;
  settings: Record<string, string>;
  tables: TableProof[];
}

/** The compacted copy (cleanerx's own file) is read through mmap, SQLite's ceiling in this build: every page once, no copy into the page cache. */
export const MMAP_BYTES = 0x7fff0000;

// A function declaration, not a const arrow: Stryker switches a whole-arrow mutant at module load, which no test reruns.
function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** A value's token in a row's header: its type, and its value (numbers) or its length (text, blob). */
function token(v: unknown): string {
  if (v === null) return 'n';
  if (typeof v === 'bigint') return `i${v};`;
  if (typeof v === 'number') {
    // Stryker disable next-line StringLiteral,UnaryOperator: -0 needs a token of its own only apart from 0 ('r;' for it, or the two swapped by +0, keeps them apart).
    const n = Object.is(v, -0) ? '-0' : String(v);
    return `r${n};`;
  }
  // Stryker disable next-line EqualityOperator: the negation swaps the tokens of text and blob, which still differ.
  if (typeof v === 'string') return `t${v.length};`;
  return `b${(v as Buffer).length};`;
}

/**
 * One row: a small header naming each value's type and length (numbers in
 * full), then the text and blob values themselves, handed to the hash as
 * they are — no copy of a large value is ever concatenated.
 */
function hashRow(h: ReturnType<typeof createHash>, row: unknown[]): void {
  // Stryker disable next-line StringLiteral: a row marker only; every value's token is self-delimiting and a table's rows have one arity, so the stream parses the same without it.
  let head = 'R';
  for (const v of row) head += token(v);
  h.update(head);
  for (const v of row) if (v !== null && (typeof v === 'string' || typeof v === 'object')) h.update(v as string | Buffer);
}

function hashTable(db: Database.Database, name: string, withoutRowid: boolean): TableProof {
  const t = quoteIdent(name);
  let order = 'rowid';
  let select = `rowid, *`;
  if (withoutRowid) {
    const pk = (db.prepare(`SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`).all(name) as { name: string }[]).map((r) =>
      quoteIdent(r.name),
    );
    order = pk.join(', ');
    select = '*';
  }
  const st = db.prepare(`SELECT ${select} FROM ${t} ORDER BY ${order}`).raw(true);
  st.safeIntegers(true);
  const h = createHash('sha256');
  let rows = 0;
  for (const row of st.iterate() as IterableIterator<unknown[]>) {
    rows++;
    hashRow(h, row);
  }
  return { name, rows, sha256: h.digest('hex') };
}

/** Reads the whole database once; call it inside the lock that keeps writers out. */
export function contentProof(db: Database.Database): ContentProof {
  const schema = db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name`).raw(true).all() as [
    string,
    string,
    string,
    string | null,
  ][];
  const schemaSha256 = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  const settings: Record<string, string> = {};
  for (const p of ['page_size', 'auto_vacuum', 'user_version', 'application_id', 'encoding']) settings[p] = String(db.pragma(p, { simple: true }));
  const tables: TableProof[] = [];
  for (const [type, name, , sql] of schema) {
    // SQLite stores the text with its leading spaces removed and one space after each of the first two keywords;
    // only an automatic index has no text, never a table.
    if (type !== 'table' || /^CREATE VIRTUAL /i.test(sql!)) continue;
    tables.push(hashTable(db, name, /\bWITHOUT\s+ROWID\s*$/i.test(sql!)));
  }
  return { schemaSha256, settings, tables };
}

/** The first difference between two proofs, as a sentence, or null when they are equal. */
export function proofDifference(a: ContentProof, b: ContentProof): string | null {
  if (a.schemaSha256 !== b.schemaSha256) return 'the schema differs';
  for (const [k, v] of Object.entries(a.settings)) if (b.settings[k] !== v) return `${k} is ${b.settings[k]} instead of ${v}`;
  if (a.tables.length !== b.tables.length) return `${b.tables.length} tables instead of ${a.tables.length}`;
  for (let i = 0; i < a.tables.length; i++) {
    const x = a.tables[i]!;
    const y = b.tables[i]!;
    if (x.name !== y.name) return `table ${y.name} instead of ${x.name}`;
    if (x.rows !== y.rows) return `table ${x.name} has ${y.rows} rows instead of ${x.rows}`;
    if (x.sha256 !== y.sha256) return `the rows of table ${x.name} differ`;
  }
  return null;
}

export interface ComparedTable {
  name: string;
  rows: number;
}

/**
 * Proves, inside SQLite, that the database at `otherPath` holds exactly the
 * content of `db`: the same schema and settings, and for every table the
 * same row count and, for each row, a row with the same key whose every
 * value has the same type and the same bytes (reals compared as numbers,
 * everything else as blobs, so no collation can call 'A' equal to 'a').
 * Equal counts plus a match for every row is a one-to-one match. This is
 * exact where a hash is only probable, and runs at SQLite's speed: the
 * JavaScript hashing of contentProof is a multiple of the VACUUM itself.
 * Returns the first difference as a phrase, or null.
 */
export function compareWith(db: Database.Database, otherPath: string): { tables: ComparedTable[]; difference: string | null } {
  db.prepare(`ATTACH DATABASE ? AS cmp`).run(otherPath);
  try {
    // Set before the first read of cmp: the connection's EXCLUSIVE mode would otherwise lock the copy against the integrity thread.
    db.pragma('cmp.locking_mode = NORMAL');
    db.pragma(`cmp.mmap_size = ${MMAP_BYTES}`);
    const schemaOf = (s: string): string =>
      // Stryker disable next-line BooleanLiteral: rows as objects stringify with the same keys in the same order, equal exactly when the arrays are.
      JSON.stringify(db.prepare(`SELECT type, name, tbl_name, sql FROM ${s}.sqlite_schema ORDER BY type, name`).raw(true).all());
    if (schemaOf('main') !== schemaOf('cmp')) return { tables: [], difference: 'the schema differs' };
    for (const p of ['page_size', 'auto_vacuum', 'user_version', 'application_id']) {
      const a = String(db.pragma(`main.${p}`, { simple: true }));
      const b = String(db.pragma(`cmp.${p}`, { simple: true }));
      if (a !== b) return { tables: [], difference: `${p} is ${b} instead of ${a}` };
    }
    const tables: ComparedTable[] = [];
    // A table's text is never NULL (only an automatic index has none).
    const list = db.prepare(`SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string; sql: string }[];
    for (const { name, sql } of list) {
      if (/^CREATE VIRTUAL /i.test(sql)) continue;
      const t = quoteIdent(name);
      const cols = db.prepare(`SELECT name, pk FROM pragma_table_info(?)`).all(name) as { name: string; pk: number }[];
      const withoutRowid = /\bWITHOUT\s+ROWID\s*$/i.test(sql);
      const on = withoutRowid
        ? cols
            .filter((c) => c.pk > 0)
            .map((c) => `b.${quoteIdent(c.name)} = a.${quoteIdent(c.name)}`)
            .join(' AND ')
        : 'b.rowid = a.rowid';
      const probe = withoutRowid ? `b.${quoteIdent(cols.find((c) => c.pk > 0)!.name)}` : 'b.rowid';
      const same = cols
        .map((c) => {
          const x = `a.${quoteIdent(c.name)}`;
          const y = `b.${quoteIdent(c.name)}`;
          return `(typeof(${x}) = typeof(${y}) AND CASE typeof(${x}) WHEN 'null' THEN 1 WHEN 'real' THEN ${x} = ${y} ELSE CAST(${x} AS BLOB) = CAST(${y} AS BLOB) END)`;
        })
        .join(' AND ');
      const rows = Number((db.prepare(`SELECT count(*) FROM main.${t}`).pluck().get() as number | bigint) ?? 0);
      const other = Number((db.prepare(`SELECT count(*) FROM cmp.${t}`).pluck().get() as number | bigint) ?? 0);
      if (rows !== other) return { tables, difference: `table ${name} has ${other} rows instead of ${rows}` };
      const bad = db
        .prepare(`SELECT count(*) FROM main.${t} AS a LEFT JOIN cmp.${t} AS b ON ${on} WHERE ${probe} IS NULL OR NOT (${same})`)
        .pluck()
        .get() as number;
      if (Number(bad) !== 0) return { tables, difference: `${bad} rows of table ${name} differ` };
      tables.push({ name, rows });
    }
    return { tables, difference: null };
  } finally {
    db.prepare('DETACH DATABASE cmp').run();
  }
}
