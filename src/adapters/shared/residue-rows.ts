// Rows of an agent's SQLite table that still name a removed session, counted
// on a database opened through engine/host/sqlite-quiet.ts. Bounded: with an
// index led by the owner column the count is exact; without one only the
// newest rows are looked at, and a longer table proves nothing (null).

import type Database from 'better-sqlite3';

const UNINDEXED_ROWS = 200_000;

/** Counts per id (ids compared as written and upper-cased); null where the bound left the answer open. Throws on a read error. */
export function ownedRowCounter(db: Database.Database, table: string, column: string): ((id: string) => number | null) | null {
  const q = (s: string) => JSON.stringify(s);
  const cols = (db.prepare(`PRAGMA table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name);
  if (!cols.includes(column)) return null;
  const indexed = (db.prepare(`PRAGMA index_list(${q(table)})`).all() as { name: string }[]).some((ix) => {
    const first = (db.prepare(`PRAGMA index_info(${q(ix.name)})`).all() as { seqno: number; name: string }[]).find((c) => c.seqno === 0);
    return first?.name === column;
  });
  if (indexed) {
    const st = db.prepare(`SELECT count(*) AS n FROM ${q(table)} WHERE ${q(column)} IN (?, ?)`);
    return (id) => (st.get(id, id.toUpperCase()) as { n: number }).n;
  }
  const total = (db.prepare(`SELECT count(*) AS n FROM ${q(table)}`).get() as { n: number }).n;
  const st = db.prepare(`SELECT count(*) AS n FROM (SELECT ${q(column)} AS c FROM ${q(table)} ORDER BY rowid DESC LIMIT ${UNINDEXED_ROWS}) WHERE c IN (?, ?)`);
  return (id) => {
    const n = (st.get(id, id.toUpperCase()) as { n: number }).n;
    return n === 0 && total > UNINDEXED_ROWS ? null : n;
  };
}
