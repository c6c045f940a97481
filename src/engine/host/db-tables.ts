// Where the bytes of an agent database go, table by table: SQLite's dbstat
// (compiled into the bundled SQLite) sums the pages of each b-tree, and an
// index counts with its table. Read only, through a connection the caller
// opened quietly (sqlite-quiet.ts); visits every page, so it runs on demand
// (a preview), never during a scan.

import type Database from 'better-sqlite3';
import { formatBytes } from '../core/format.js';
import type { PreviewBlock } from '../core/model.js';
import { cleanText } from '../core/text.js';

interface TableBytes {
  table: string;
  bytes: number;
}

/** Bytes per table (its indexes included), largest first; null when dbstat is not available. */
export function tableBytes(db: Database.Database): TableBytes[] | null {
  let rows: { name: unknown; bytes: unknown }[];
  try {
    rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as typeof rows;
  } catch {
    return null;
  }
  const owner = new Map<string, string>();
  for (const r of db.prepare(`SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')`).all() as { name: unknown; tbl_name: unknown }[])
    if (typeof r.name === 'string' && typeof r.tbl_name === 'string') owner.set(r.name, r.tbl_name);
  const sums = new Map<string, number>();
  for (const r of rows) {
    if (typeof r.name !== 'string' || typeof r.bytes !== 'number') continue;
    const table = owner.get(r.name) ?? r.name;
    sums.set(table, (sums.get(table) ?? 0) + r.bytes);
  }
  return [...sums].map(([table, bytes]) => ({ table, bytes })).sort((a, b) => b.bytes - a.bytes || a.table.localeCompare(b.table));
}

/** A preview block of the largest tables: "event  4.1 GB  66%", with what the agent's route can do about each (`notes`). */
export function tableBytesBlock(tables: readonly TableBytes[], notes: Readonly<Record<string, string>> = {}, max = 12): PreviewBlock {
  const total = tables.reduce((n, x) => n + x.bytes, 0) || 1;
  const lines = tables.slice(0, max).map((x) => {
    const share = `${Math.round((x.bytes / total) * 100)}%`.padStart(4);
    const note = notes[x.table] ? ` — ${notes[x.table]}` : '';
    return `${cleanText(x.table, 64).padEnd(24)} ${formatBytes(x.bytes).padStart(9)} ${share}${note}`;
  });
  if (tables.length > max) lines.push(`… and ${tables.length - max} smaller tables`);
  return { kind: 'text', title: 'Bytes per table (indexes included, read only)', text: lines.join('\n') };
}
