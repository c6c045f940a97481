// session_index.jsonl: thread names, one `{"id","thread_name","updated_at"}`
// per line, the last line for an id wins. Read bounded; a symbolic link, a
// non-regular file or a line that is not a JSON object with an id makes
// cleanerx ignore the whole index (with a warning) rather than half-trust it.

import { join } from 'node:path';
import { readPrefix } from '../../engine/fsx.js';
import type { ScanWarning } from '../../engine/model.js';
import { THREAD_ID } from './paths.js';

export const MAX_INDEX_BYTES = 64 * 1024 * 1024;

export async function readSessionIndex(home: string, warnings: ScanWarning[]): Promise<Map<string, string>> {
  const path = join(home, 'session_index.jsonl');
  const names = new Map<string, string>();
  let text: string;
  try {
    const p = await readPrefix(path, MAX_INDEX_BYTES);
    if (p.truncated) {
      warnings.push({ path, reason: `session_index.jsonl is larger than ${MAX_INDEX_BYTES >> 20} MiB; thread names from it are ignored.` });
      return names;
    }
    text = p.buf.toString('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return names;
    warnings.push({ path, reason: code === 'ELOOP' ? 'session_index.jsonl is a symbolic link; thread names from it are ignored.' : 'session_index.jsonl is not a readable regular file; thread names from it are ignored.' });
    return names;
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      rec = null;
    }
    const r = rec && typeof rec === 'object' && !Array.isArray(rec) ? (rec as Record<string, unknown>) : null;
    if (!r || typeof r.id !== 'string') {
      warnings.push({ path, reason: 'session_index.jsonl has a malformed line; thread names from it are ignored.' });
      return new Map();
    }
    if (!THREAD_ID.test(r.id)) continue;
    const name = typeof r.thread_name === 'string' ? r.thread_name.trim().slice(0, 2000) : '';
    if (name) names.set(r.id.toLowerCase(), name);
    else names.delete(r.id.toLowerCase());
  }
  return names;
}
