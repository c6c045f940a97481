// The shared pass of every file agent's explain: each JSONL transcript of a
// session is streamed line by line (engine/host/line-reader.ts: bounded line
// head, every byte counted) and each record given a kind by the agent's
// classifier; every other path of the session counts as side files. Links
// are never followed; nothing is written.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { ExplainKind, ExplainTally } from '../../engine/core/explain.js';
import { t } from '../../engine/i18n/index.js';
import { forEachBoundedLine } from '../../engine/host/line-reader.js';
import { parseObject } from './jsonl.js';

/** A line's head is parsed whole up to this; past it only its start is matched (a 2 GB line never sits in memory). */
const MAX_LINE = 8 * 1024 * 1024;
/** Entries of a session's side dirs visited at most. */
const MAX_SIDE_ENTRIES = 100_000;

/**
 * One record's kind: `rec` is the parsed line (null when the line is longer
 * than MAX_LINE: then `head` is its start); null means unreadable.
 */
type Classify = (rec: Record<string, unknown> | null, head: string) => ExplainKind | null;

/** The `"type": "…"` values in a line's head, in order: a cut line's record type without parsing it. */
export function headTypes(head: string, max = 3): string[] {
  const out: string[] = [];
  for (const m of head.matchAll(/"type"\s*:\s*"([A-Za-z0-9_.-]{1,64})"/g)) {
    out.push(m[1]!);
    if (out.length >= max) break;
  }
  return out;
}

/** Streams one transcript into `tally`. */
async function explainJsonl(path: string, classify: Classify, tally: ExplainTally): Promise<void> {
  let unreadable = 0;
  await forEachBoundedLine(path, MAX_LINE, (line) => {
    const blank = line.whole && !line.head.trim();
    if (blank) {
      tally.add('other', line.bytes, 0);
      return;
    }
    const rec = line.whole ? parseObject(line.head) : null;
    const kind = line.whole && !rec ? null : classify(rec ?? null, line.head);
    if (!kind) unreadable++;
    tally.add(kind ?? 'unreadable', line.bytes);
  });
  if (unreadable) tally.notes.push(t('explain.note.unreadable', { count: unreadable }));
}

/** Every path of a session: transcripts (by `isTranscript`) streamed, the rest summed as side files. */
export async function explainPaths(paths: readonly string[], isTranscript: (p: string) => boolean, classify: Classify, tally: ExplainTally): Promise<void> {
  const budget = { left: MAX_SIDE_ENTRIES };
  let linked = false;
  const visit = async (p: string, top: boolean): Promise<void> => {
    if (budget.left-- <= 0) return;
    const st = await fsp.lstat(p).catch(() => null);
    if (!st) return;
    if (st.isSymbolicLink()) {
      linked = true;
      tally.add('sideFiles', st.size);
    } else if (st.isFile()) {
      if (isTranscript(p)) await explainJsonl(p, classify, tally);
      else tally.add('sideFiles', st.size);
    } else if (st.isDirectory()) {
      const names = await fsp.readdir(p).catch(() => [] as string[]);
      for (const n of names.sort()) await visit(join(p, n), false);
    } else if (top) tally.add('sideFiles', 0);
  };
  for (const p of paths) await visit(p, true);
  if (linked) tally.notes.push(t('explain.note.link'));
}
