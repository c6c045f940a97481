// Item rules: which non-session items of one snapshot a kind selects
// (`plan --items temp,gc`, `plan --suggested`, the Overview's suggested plan).
// A kind is read from the item's own facts (category, official kind,
// what the agent loses), so every agent's items answer the same rule.
// The bytes are counted once: an item inside another selected item's path is
// left out, and an item that is an alternative to a selected one (a git gc of
// a repository that goes whole) too.

import type { Item } from '../../core/model.js';
import { RequestError } from '../../core/validate.js';

export const ITEM_KINDS = ['leaked', 'cache', 'temp', 'gc', 'compaction', 'old-logs', 'logs', 'snapshots', 'memory', 'media'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** "Reclaim the safe and regenerable bytes": what the agent rebuilds or never uses again, and rewrites that lose nothing. */
export const SUGGESTED_KINDS: readonly ItemKind[] = ['leaked', 'cache', 'temp', 'gc', 'compaction', 'old-logs'];

/** The kind of one item, or null for what no rule selects (protected, unrecognized, sessions). */
export function itemKindOf(it: Pick<Item, 'category' | 'metadata'>): ItemKind | null {
  const m = it.metadata;
  if (m.officialKind === 'gc') return 'gc';
  if (m.officialKind === 'compact') return 'compaction';
  if (m.officialKind === 'rows') return 'old-logs';
  switch (it.category) {
    case 'temporary':
      // Files nothing refers to (an interrupted git's tmp_pack, output past its retention): the agent loses nothing.
      return m.agentLoses === 'nothing' ? 'leaked' : 'temp';
    case 'cache':
      // A snapshot repository serves its sessions' undo: never a plain cache.
      return typeof m.snapshotSessions === 'number' ? 'snapshots' : 'cache';
    case 'log':
      return 'logs';
    case 'memory':
      return 'memory';
    case 'attachment':
    case 'generatedImage':
      return 'media';
    default:
      return null;
  }
}

/** Throws a RequestError naming the first value that is not a kind. */
export function validateItemKinds(v: unknown): ItemKind[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > ITEM_KINDS.length)
    throw new RequestError(`items must be a list of item kinds (${ITEM_KINDS.join(', ')})`);
  const seen = new Set<string>();
  for (const k of v) {
    if (typeof k !== 'string' || !(ITEM_KINDS as readonly string[]).includes(k)) throw new RequestError(`unknown item kind "${String(k).slice(0, 40)}"`);
    if (seen.has(k)) throw new RequestError(`item kind "${k}" is listed twice`);
    seen.add(k);
  }
  return v as ItemKind[];
}

/** "temp,gc" → kinds, or null naming nothing valid. */
export function parseItemKinds(s: string): ItemKind[] | null {
  const parts = s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  try {
    return validateItemKinds(parts);
  } catch {
    return null;
  }
}

interface ItemMatchEntry {
  id: string;
  title: string;
  bytes: number;
  reason: string;
  kind: ItemKind;
}

interface ItemMatch {
  matched: ItemMatchEntry[];
  skipped: ItemMatchEntry[];
  /** Bytes of the matched items, each byte once. */
  bytes: number;
}

const within = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** Items of these kinds: the selectable ones matched (once per byte), the others skipped with why. */
export function matchItemKinds(items: readonly Item[], kinds: readonly ItemKind[]): ItemMatch {
  const want = new Set(kinds);
  const picked: { it: Item; kind: ItemKind }[] = [];
  const skipped: ItemMatchEntry[] = [];
  for (const it of items) {
    const kind = itemKindOf(it);
    if (!kind || !want.has(kind) || it.metadata.unrecognized || it.metadata.protected) continue;
    if (!it.selectable) skipped.push({ id: it.id, title: it.label, bytes: it.bytes, reason: it.blockedReason ?? 'cannot be cleaned', kind });
    else picked.push({ it, kind });
  }
  return { ...onceEach(picked), skipped };
}

/** Drops what another picked item already frees: a path inside a picked path, an alternative of a picked item. */
function onceEach(picked: { it: Item; kind: ItemKind }[]): { matched: ItemMatchEntry[]; bytes: number } {
  const ids = new Set(picked.map((p) => p.it.id));
  const roots = picked.flatMap((p) => p.it.paths.map((path) => ({ path, id: p.it.id })));
  const matched: ItemMatchEntry[] = [];
  let bytes = 0;
  for (const { it, kind } of picked) {
    const alt = it.metadata.alternativeTo;
    if (typeof alt === 'string' && ids.has(alt)) continue;
    const inside = it.paths.length > 0 && it.paths.every((p) => roots.some((r) => r.id !== it.id && within(p, r.path) && !(p === r.path && r.id > it.id)));
    if (inside) continue;
    matched.push({ id: it.id, title: it.label, bytes: it.bytes, reason: `item kind ${kind}`, kind });
    bytes += it.bytes;
  }
  return { matched, bytes };
}

/**
 * What the agent could give back now outside its sessions, each byte once:
 * every selectable item a rule can select, where a repository and its gc
 * count as one (the repository: it frees all the gc would) and a path inside
 * another item's path not at all.
 */
export function reclaimableBytes(items: readonly Item[]): number {
  return matchItemKinds(items, ITEM_KINDS).bytes;
}
