// A small SQLite database with free pages to reclaim (300 rows written, 260
// deleted): what the compaction tests compact.
import Database from 'better-sqlite3';

export function writeFreePagesDb(path: string): void {
  const d = new Database(path);
  d.exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO t SELECT i, hex(randomblob(300)) FROM n; DELETE FROM t WHERE id > 40',
  );
  d.close();
}
