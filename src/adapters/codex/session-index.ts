// session_index.jsonl: thread names, one `{"id","thread_name","updated_at"}`
// per line, the last line for an id wins. A protected file cleanerx reads:
// opened read-only without following a link or waiting on a FIFO
// (engine/bounded-read.ts), at most MAX_INDEX_BYTES, streamed line by line;
// only `thread_name` of the threads the scan lists is kept, every other value
// is dropped with its line. A symbolic link, a non-regular file or a line
// that is not a JSON object with an id makes cleanerx ignore the whole index
// (with a warning) rather than half-trust it.

import { join } from 'node:path';
import { BoundedReadError, openRegularFileAsync } from '../../engine/host/bounded-read.js';
import type { ScanWarning } from '../../engine/core/model.js';
import { THREAD_ID } from './paths.js';

export const MAX_INDEX_BYTES = 64 * 1024 * 1024;
/** An index line is a few hundred bytes; a longer one is not Codex's. */
const MAX_LINE_BYTES = 1024 * 1024;
const CHUNK = 256 * 1024;

type LineResult = 'ok' | 'malformed';

/** Applies one line to `names`: only the id and thread_name are looked at. */
function applyLine(line: string, names: Map<string, string>, wanted: ReadonlySet<string> | null): LineResult {
  if (!line.trim()) return 'ok';
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return 'malformed';
  }
  const r = rec && typeof rec === 'object' && !Array.isArray(rec) ? (rec as Record<string, unknown>) : null;
  if (!r || typeof r.id !== 'string') return 'malformed';
  if (!THREAD_ID.test(r.id)) return 'ok';
  const id = r.id.toLowerCase();
  if (wanted && !wanted.has(id)) return 'ok';
  const name = typeof r.thread_name === 'string' ? r.thread_name.trim().slice(0, 2000) : '';
  if (name) names.set(id, name);
  else names.delete(id);
  return 'ok';
}

/**
 * Thread id (lower case) → name. With `wanted`, names of other ids are not
 * kept. Never throws: a refusal is a warning and an empty map.
 */
export async function readSessionIndex(home: string, warnings: ScanWarning[], wanted: ReadonlySet<string> | null = null): Promise<Map<string, string>> {
  const path = join(home, 'session_index.jsonl');
  const names = new Map<string, string>();
  const tooLarge = (): Map<string, string> => {
    warnings.push({ path, reason: `session_index.jsonl is larger than ${MAX_INDEX_BYTES >> 20} MiB; thread names from it are ignored.` });
    return new Map();
  };
  const malformed = (): Map<string, string> => {
    warnings.push({ path, reason: 'session_index.jsonl has a malformed line; thread names from it are ignored.' });
    return new Map();
  };
  let opened;
  try {
    opened = await openRegularFileAsync(path);
  } catch (e) {
    if (e instanceof BoundedReadError && e.reason === 'missing') return names;
    warnings.push({
      path,
      reason:
        e instanceof BoundedReadError && e.reason === 'link'
          ? 'session_index.jsonl is a symbolic link; thread names from it are ignored.'
          : 'session_index.jsonl is not a readable regular file; thread names from it are ignored.',
    });
    return names;
  }
  const { fh, stat } = opened;
  try {
    if (stat.size > MAX_INDEX_BYTES) return tooLarge();
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry = '';
    let total = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      // It grew past the bound while read.
      if (total > MAX_INDEX_BYTES) return tooLarge();
      // A multi-byte character split across chunks decodes whole once joined: decode on line ends only.
      const text = carry + buf.toString('latin1', 0, bytesRead);
      const lines = text.split('\n');
      carry = lines.pop()!;
      if (carry.length > MAX_LINE_BYTES) return malformed();
      for (const l of lines) if (applyLine(Buffer.from(l, 'latin1').toString('utf8'), names, wanted) === 'malformed') return malformed();
    }
    if (applyLine(Buffer.from(carry, 'latin1').toString('utf8'), names, wanted) === 'malformed') return malformed();
    return names;
  } catch {
    warnings.push({ path, reason: 'session_index.jsonl could not be read to the end; thread names from it are ignored.' });
    return new Map();
  } finally {
    await fh.close();
  }
}
