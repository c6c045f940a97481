// Growth since the last scan: cleanerx's own state keeps each agent's
// per-category totals of past scans, bounded in count and in file size, so
// the Overview can say "+X since DATE" and draw a short trend. The file is
// cleanerx's, but anyone may have put something else in its place: it is read
// bounded, and a file that is not a history (corrupt, a FIFO, huge, a link)
// is ignored with one warning and replaced by the next scan's record.

import { agentKinds } from '../core/agents.js';
import { join } from 'node:path';
import { writeFileAtomic } from '../host/atomic.js';
import { BoundedReadError, readRegularTextAsync } from '../host/bounded-read.js';
import { CATEGORIES, type AgentKind, type Category, type CategoryTotal } from '../core/model.js';
import type { CategoryGrowth, GrowthSummary } from '../core/model.js';
import { parseBoundedJson } from '../core/bounded-json.js';

export type { CategoryGrowth, GrowthSummary } from '../core/model.js';

export const HISTORY_FILE = 'scan-history.json';
/** Scans kept per agent home. */
export const MAX_ENTRIES = 30;
/** Scans closer together than this share one entry (the later one wins). */
export const SLOT_MS = 60 * 60 * 1000;
/** 30 entries × 4 agents of 8 categories are ~40 KB; anything far larger is not ours. */
export const MAX_HISTORY_BYTES = 256 * 1024;
/** Agent homes remembered per agent (a home override moved the data). */
const MAX_HOMES = 4;

export interface HistoryEntry {
  at: number;
  byCategory: Partial<Record<Category, CategoryTotal>>;
}

interface HomeHistory {
  home: string;
  entries: HistoryEntry[];
}

interface HistoryFile {
  version: 1;
  agents: Partial<Record<AgentKind, HomeHistory[]>>;
}

const empty = (): HistoryFile => ({ version: 1, agents: {} });

function finiteNonNegative(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** Keeps only well-formed parts; returns null when the whole is not a history. */
export function parseHistory(text: string): HistoryFile | null {
  let raw: unknown;
  try {
    raw = parseBoundedJson(text);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object' || (raw as { version?: unknown }).version !== 1) return null;
  const agents = (raw as { agents?: unknown }).agents;
  if (!agents || typeof agents !== 'object') return null;
  const out = empty();
  for (const agent of agentKinds()) {
    const homes = (agents as Record<string, unknown>)[agent];
    if (!Array.isArray(homes)) continue;
    const kept: HomeHistory[] = [];
    for (const h of homes.slice(0, MAX_HOMES)) {
      if (!h || typeof h !== 'object' || typeof h.home !== 'string' || !Array.isArray(h.entries)) continue;
      const entries: HistoryEntry[] = [];
      for (const e of h.entries.slice(-MAX_ENTRIES * 2)) {
        if (!e || typeof e !== 'object' || !finiteNonNegative(e.at) || !e.byCategory || typeof e.byCategory !== 'object') continue;
        const byCategory: Partial<Record<Category, CategoryTotal>> = {};
        for (const c of CATEGORIES) {
          const t = e.byCategory[c];
          if (t && finiteNonNegative(t.bytes) && finiteNonNegative(t.items)) byCategory[c] = { bytes: t.bytes, items: t.items };
        }
        entries.push({ at: e.at, byCategory });
      }
      entries.sort((a, b) => a.at - b.at);
      kept.push({ home: h.home.slice(0, 4096), entries: thin(entries) });
    }
    if (kept.length) out.agents[agent] = kept;
  }
  return out;
}

/**
 * At most MAX_ENTRIES, the newest and the oldest always kept: while over,
 * the entry closest to its newer neighbour goes, so old stretches thin out
 * to fewer, wider-spaced points and the trend still reaches back.
 */
function thin(entries: HistoryEntry[]): HistoryEntry[] {
  const out = [...entries];
  while (out.length > MAX_ENTRIES) {
    let drop = 1;
    let gap = Infinity;
    for (let i = 1; i < out.length - 1; i++) {
      const g = out[i + 1]!.at - out[i]!.at;
      if (g < gap) {
        gap = g;
        drop = i;
      }
    }
    out.splice(drop, 1);
  }
  return out;
}

/** Adds a scan: it replaces the newest entry when that one is less than SLOT_MS older, so there is at most one entry per hour. */
export function addEntry(entries: readonly HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const out = entries.filter((e) => e.at <= entry.at);
  const last = out[out.length - 1];
  if (last && entry.at - last.at < SLOT_MS) out.pop();
  out.push(entry);
  return thin(out);
}

function managedBytes(byCategory: Partial<Record<Category, CategoryTotal>>): number {
  let n = 0;
  for (const c of CATEGORIES) if (c !== 'protected') n += byCategory[c]?.bytes ?? 0;
  return n;
}

/**
 * The change against the newest earlier scan outside this one's hour (a
 * rescan a minute later still compares with yesterday), else the newest
 * earlier one at all; null `since` when there is none.
 */
function growthOf(past: readonly HistoryEntry[], now: HistoryEntry): GrowthSummary {
  const earlier = past.filter((e) => e.at < now.at);
  const base = [...earlier].reverse().find((e) => now.at - e.at >= SLOT_MS) ?? earlier[earlier.length - 1] ?? null;
  const byCategory: Partial<Record<Category, CategoryGrowth>> = {};
  if (base) {
    for (const c of CATEGORIES) {
      const a = base.byCategory[c];
      const b = now.byCategory[c];
      if (!a && !b) continue;
      byCategory[c] = { bytes: (b?.bytes ?? 0) - (a?.bytes ?? 0), items: (b?.items ?? 0) - (a?.items ?? 0) };
    }
  }
  const kept = addEntry(past, now);
  return {
    since: base?.at ?? null,
    byCategory,
    totalBytes: base ? managedBytes(now.byCategory) - managedBytes(base.byCategory) : 0,
    trend: kept.map((e) => ({ at: e.at, bytes: managedBytes(e.byCategory) })),
  };
}

/** Reads the history; a missing file is an empty history, anything unusable an empty one with a warning. */
async function loadHistory(stateDir: string): Promise<{ history: HistoryFile; warning?: string; replaceable: boolean }> {
  const path = join(stateDir, HISTORY_FILE);
  let text: string;
  try {
    text = await readRegularTextAsync(path, MAX_HISTORY_BYTES);
  } catch (e) {
    if (e instanceof BoundedReadError && e.reason === 'missing') return { history: empty(), replaceable: true };
    const why = e instanceof BoundedReadError ? e.message : `${path} cannot be read (${(e as Error).message}).`;
    // Not opened (a FIFO, a link, a huge file): left as it is, and no history is kept until it is moved away.
    return { history: empty(), warning: `Scan history ignored: ${why}`, replaceable: false };
  }
  const history = parseHistory(text);
  if (!history)
    return { history: empty(), warning: `Scan history ignored: ${path} is not a cleanerx scan history; this scan starts it afresh.`, replaceable: true };
  return { history, replaceable: true };
}

/**
 * Records this scan's totals and answers the growth since the last one.
 * `write: false` (read-only mode) only reads. A history that cannot be read
 * or written never fails the scan: the problem is the summary's warning.
 */
export async function recordScan(
  stateDir: string,
  agent: AgentKind,
  home: string,
  at: number,
  byCategory: Partial<Record<Category, CategoryTotal>>,
  write = true,
): Promise<GrowthSummary> {
  const { history, warning, replaceable } = await loadHistory(stateDir);
  const homes = history.agents[agent] ?? [];
  const mine = homes.find((h) => h.home === home) ?? { home, entries: [] };
  const entry: HistoryEntry = { at, byCategory: copyTotals(byCategory) };
  const growth = growthOf(mine.entries, entry);
  let writeWarning: string | undefined;
  if (write && replaceable) {
    mine.entries = addEntry(mine.entries, entry);
    history.agents[agent] = [mine, ...homes.filter((h) => h !== mine)].slice(0, MAX_HOMES);
    try {
      await writeFileAtomic(join(stateDir, HISTORY_FILE), JSON.stringify(history) + '\n');
    } catch (e) {
      writeWarning = `Scan history not saved: ${(e as Error).message}`;
    }
  }
  const w = warning ?? writeWarning;
  return w ? { ...growth, warning: w } : growth;
}

function copyTotals(byCategory: Partial<Record<Category, CategoryTotal>>): Partial<Record<Category, CategoryTotal>> {
  const out: Partial<Record<Category, CategoryTotal>> = {};
  for (const c of CATEGORIES) {
    const t = byCategory[c];
    if (t) out[c] = { bytes: t.bytes, items: t.items };
  }
  return out;
}
