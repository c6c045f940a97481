// Reading an archive's manifest back without building it whole: the JSON
// text (tens of MB for 200,000 files) is walked in its buffer, each element
// of `entries` parsed alone, checked and packed into a ManifestTable, so the
// reader never holds one object per file nor the text as a string. The
// other fields (and the short lists of dirs) are parsed as JSON.parse would.
// The grammar inside every value is JSON.parse's own (of that value's
// slice); the walk finds the values' extents and bounds their nesting.

import { JsonTooDeepError, MAX_JSON_DEPTH } from '../engine/core/bounded-json.js';
import type { AgentKind } from '../engine/core/model.js';
import { ArchiveError } from './archive-error.js';
import type { Manifest, ManifestEntry } from './manifest.js';
import { ManifestTable } from './manifest-table.js';

/** A manifest as a reader holds it: every field of Manifest, the file entries packed. */
export type TableManifest = Omit<Manifest, 'entries'> & { entries: ManifestTable };

const SAFE_SEGMENT = /^(?!\.\.?$)[^/\0]+$/;
/** A root's label as the engine names them: `<agent>_home`, `<agent>_root<n>` (Claude's temp roots), `<agent>_session_export`. */
const ROOT_LABEL = /^[a-z_]+[0-9]*$/;
/** A time in ns as a decimal string, within what a 64-bit timespec holds. */
const validNs = (v: unknown): v is string => typeof v === 'string' && /^-?[0-9]{1,19}$/.test(v) && BigInt(v) < 2n ** 63n && BigInt(v) > -(2n ** 63n);
const validMode = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0o777;
const safeRef = (e: { root?: unknown; relativePath?: unknown }): boolean =>
  typeof e.root === 'string' && ROOT_LABEL.test(e.root) && typeof e.relativePath === 'string' && e.relativePath.split('/').every((s) => SAFE_SEGMENT.test(s));

function checkEntry(v: unknown): ManifestEntry {
  const e = (v ?? {}) as ManifestEntry;
  if (typeof e.root !== 'string' || !ROOT_LABEL.test(e.root) || typeof e.relativePath !== 'string')
    throw new ArchiveError('The manifest names an invalid entry.');
  if (!e.relativePath.split('/').every((s) => SAFE_SEGMENT.test(s))) throw new ArchiveError(`The manifest names an unsafe path: ${e.relativePath}`);
  if (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256) || !Number.isSafeInteger(e.sizeBytes) || e.sizeBytes < 0)
    throw new ArchiveError('The manifest has an invalid hash or size.');
  if (e.mode !== undefined && !validMode(e.mode)) throw new ArchiveError('The manifest has an invalid file mode.');
  if (e.sparse !== undefined && e.sparse !== true) throw new ArchiveError('The manifest has an invalid sparse flag.');
  if (e.mtimeNs !== undefined && !validNs(e.mtimeNs)) throw new ArchiveError('The manifest has an invalid modification time.');
  return e;
}

/** The lists besides `entries` (few elements: dirs, not files), checked against the entries. */
function checkLists(m: TableManifest): void {
  const isFile = (d: { root: string; relativePath: string }): boolean => m.entries.indexOf(d.root, d.relativePath) >= 0;
  if (m.emptyDirs !== undefined) {
    if (!Array.isArray(m.emptyDirs)) throw new ArchiveError('The manifest has an invalid list of empty directories.');
    for (const d of m.emptyDirs) {
      if (!d || !safeRef(d) || !validMode(d.mode)) throw new ArchiveError('The manifest names an invalid or unsafe empty directory.');
      if (isFile(d)) throw new ArchiveError(`The manifest names ${d.root}/${d.relativePath} as a file and a directory.`);
    }
  }
  if (m.dirs !== undefined) {
    if (!Array.isArray(m.dirs)) throw new ArchiveError('The manifest has an invalid list of directories.');
    const dirSeen = new Set<string>();
    for (const d of m.dirs) {
      if (!d || !safeRef(d) || !validMode(d.mode) || !validNs(d.mtimeNs)) throw new ArchiveError('The manifest names an invalid or unsafe directory.');
      const key = `${d.root}/${d.relativePath}`;
      if (isFile(d)) throw new ArchiveError(`The manifest names ${key} as a file and a directory.`);
      if (dirSeen.has(key)) throw new ArchiveError(`The manifest names the directory ${key} twice.`);
      dirSeen.add(key);
    }
  }
  if (m.skipped !== undefined) {
    if (!Array.isArray(m.skipped)) throw new ArchiveError('The manifest has an invalid list of skipped entries.');
    for (const k of m.skipped)
      if (!k || !safeRef(k) || !['fifo', 'socket', 'device'].includes(k.kind)) throw new ArchiveError('The manifest names an invalid skipped entry.');
  }
}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** Where the JSON value starting at `i` ends (exclusive), at nesting `depth` already; its grammar is left to JSON.parse. */
function valueEnd(b: Buffer, i: number, depth: number): number {
  let open = 0;
  for (; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x22) {
      for (i++; i < b.length && b[i] !== 0x22; i++) if (b[i] === 0x5c) i++;
      if (i >= b.length) break;
      if (open === 0) return i + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++open + depth > MAX_JSON_DEPTH) throw new JsonTooDeepError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels (at byte ${i})`);
    } else if (c === 0x5d || c === 0x7d) {
      if (open === 0) return i;
      if (--open === 0) return i + 1;
    } else if (open === 0 && (c === 0x2c || isSpace(c))) return i;
  }
  if (open === 0) return i;
  throw new SyntaxError('Unexpected end of JSON input');
}

const parseAt = (b: Buffer, start: number, end: number): unknown => JSON.parse(b.toString('utf8', start, end));

function expectByte(b: Buffer, i: number, c: number): void {
  if (b[i] !== c) throw new SyntaxError(`Unexpected ${i < b.length ? `byte 0x${b[i]!.toString(16)}` : 'end of JSON input'} at ${i} in the manifest`);
}

/** Each element of the array at `i` (its `[`), parsed alone; returns the index past its `]`. */
function eachElement(b: Buffer, i: number, f: (v: unknown) => void): number {
  i = skipSpace(b, i + 1);
  if (b[i] === 0x5d) return i + 1;
  for (;;) {
    const end = valueEnd(b, i, 2);
    f(parseAt(b, i, end));
    i = skipSpace(b, end);
    if (b[i] === 0x5d) return i + 1;
    expectByte(b, i, 0x2c);
    i = skipSpace(b, i + 1);
  }
}

/** The manifest in `b` (its JSON text), checked as the reader needs it; refuses what cleanerx never writes. */
export function parseManifest(b: Buffer, expectAgent?: AgentKind): TableManifest {
  const head: Record<string, unknown> = {};
  const entries = new ManifestTable();
  let i = skipSpace(b, 0);
  if (b[i] !== 0x7b) throw new ArchiveError('The archive has no valid cleanerx manifest.');
  i = skipSpace(b, i + 1);
  let listed = false;
  if (b[i] === 0x7d) i++;
  else
    for (;;) {
      expectByte(b, i, 0x22);
      const keyEnd = valueEnd(b, i, 1);
      const key = parseAt(b, i, keyEnd) as string;
      // cleanerx writes each field once; JSON.parse would keep the last of two.
      if (Object.hasOwn(head, key) || (key === 'entries' && listed)) throw new ArchiveError('The archive has no valid cleanerx manifest.');
      i = skipSpace(b, keyEnd);
      expectByte(b, i, 0x3a);
      i = skipSpace(b, i + 1);
      if (key === 'entries' && b[i] === 0x5b) {
        listed = true;
        i = eachElement(b, i, (v) => {
          const e = checkEntry(v);
          if (!entries.add(e)) throw new ArchiveError(`The manifest names ${e.root}/${e.relativePath} twice.`);
        });
      } else {
        const end = valueEnd(b, i, 1);
        head[key] = parseAt(b, i, end);
        i = end;
      }
      i = skipSpace(b, i);
      if (b[i] === 0x7d) {
        i++;
        break;
      }
      expectByte(b, i, 0x2c);
      i = skipSpace(b, i + 1);
    }
  if (skipSpace(b, i) !== b.length) throw new SyntaxError('Unexpected non-whitespace character after the manifest JSON');
  const m = { ...head, entries } as unknown as TableManifest;
  if ((m.formatVersion !== 1 && m.formatVersion !== 2) || typeof m.id !== 'string' || !listed)
    throw new ArchiveError('The archive has no valid cleanerx manifest.');
  if (expectAgent && m.agent !== expectAgent) throw new ArchiveError(`The archive belongs to ${m.agent}, not ${expectAgent}.`);
  checkLists(m);
  return m;
}

/** The manifest with every entry as an object (for a caller that wants them all, e.g. a small archive's tests). */
export function unpackManifest(m: TableManifest): Manifest {
  return { ...m, entries: Array.from({ length: m.entries.length }, (_, i) => m.entries.entry(i)) };
}
