// Retention rules: which sessions of one snapshot a rule set selects. The
// same evaluation answers the TUI's Select menu (count and size before
// marking) and `cleanerx plan` (the items with why, and what was skipped).
// Rules combine with AND; a blocked session never matches, it is reported.

import { agentName } from '../../core/agents.js';
import type { SessionNode } from '../forest.js';
import { formatBytes } from '../../core/format.js';
import { NO_PROJECT_ID, type SessionState } from '../../core/model.js';
import type { Snapshot } from '../snapshot.js';
import { RequestError } from '../../core/validate.js';
import { matchItemKinds, validateItemKinds, type ItemKind } from './item-kinds.js';

export interface RetentionRules {
  /** Whole days; a tree counts only when it and every descendant were last used before then. */
  olderThanDays?: number;
  /** Bytes the removal frees: the session and what the agent's route removes with it. */
  largerThanBytes?: number;
  /** Per project, the N most recently used trees are kept. */
  keepLatest?: number;
  /** No user message (header only), where the agent's record can tell. */
  empty?: boolean;
  /** The recorded parent is gone. */
  orphans?: boolean;
  /** A project id, or one of its root paths. */
  project?: string;
  source?: string;
  state?: SessionState;
  /** Non-session items of these kinds (item-kinds.ts); with no session rule beside it, no session is selected. */
  items?: ItemKind[];
}

export const RULE_KEYS = ['olderThanDays', 'largerThanBytes', 'keepLatest', 'empty', 'orphans', 'project', 'source', 'state', 'items'] as const;
/** The rules that select sessions (all but `items`). */
const SESSION_RULE_KEYS = RULE_KEYS.filter((k) => k !== 'items');

interface RuleMatchItem {
  /** The session's item id. */
  id: string;
  title: string;
  bytes: number;
  reason: string;
}

export interface RuleMatch {
  matched: RuleMatchItem[];
  /** Sessions every rule selects that cannot be cleaned, with why. */
  skipped: RuleMatchItem[];
  /** The own bytes of the matched sessions (the plan adds what their route removes with them). */
  bytes: number;
  /** Plain sentences about rules that could not be applied as asked. */
  notes: string[];
}

const DAY = 86_400_000;
const MAX_DAYS = 100_000;

/** Throws a RequestError naming the first field that is not a valid rule. */
export function validateRules(r: unknown): RetentionRules {
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw new RequestError('rules must be an object');
  const o = r as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!(RULE_KEYS as readonly string[]).includes(k)) throw new RequestError(`unknown rule "${k.slice(0, 40)}"`);
  const count = (k: string, max: number): void => {
    const v = o[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max))
      throw new RequestError(`${k} must be a whole number from 0 to ${max}`);
  };
  count('olderThanDays', MAX_DAYS);
  count('keepLatest', 1_000_000);
  if (o.largerThanBytes !== undefined && (typeof o.largerThanBytes !== 'number' || !Number.isFinite(o.largerThanBytes) || o.largerThanBytes < 0))
    throw new RequestError('largerThanBytes must be a size in bytes');
  for (const k of ['empty', 'orphans']) if (o[k] !== undefined && typeof o[k] !== 'boolean') throw new RequestError(`${k} must be true or false`);
  for (const k of ['project', 'source'])
    if (o[k] !== undefined && (typeof o[k] !== 'string' || (o[k] as string).length === 0 || (o[k] as string).length > 512))
      throw new RequestError(`${k} must be text of 1–512 characters`);
  if (o.state !== undefined && o.state !== 'current' && o.state !== 'archived') throw new RequestError('state must be current or archived');
  if (o.items !== undefined) validateItemKinds(o.items);
  return o as RetentionRules;
}

export function rulesEmpty(r: RetentionRules): boolean {
  return RULE_KEYS.every((k) => r[k] === undefined || r[k] === false);
}

const sessionRulesEmpty = (r: RetentionRules): boolean => SESSION_RULE_KEYS.every((k) => r[k] === undefined || r[k] === false);

/**
 * Sessions and items together: the sessions the session rules select (none
 * when only `items` is given) and the items of the `items` kinds.
 */
export function evaluateAllRules(snap: Snapshot, rules: RetentionRules): RuleMatch {
  validateRules(rules);
  const sessions: RuleMatch = rules.items && sessionRulesEmpty(rules) ? { matched: [], skipped: [], bytes: 0, notes: [] } : evaluateRules(snap, rules);
  if (!rules.items) return sessions;
  const items = matchItemKinds(snap.items, rules.items);
  const plain = ({ id, title, bytes, reason }: RuleMatchItem): RuleMatchItem => ({ id, title, bytes, reason });
  return {
    matched: [...sessions.matched, ...items.matched.map(plain)],
    skipped: [...sessions.skipped, ...items.skipped.map(plain)],
    bytes: sessions.bytes + items.bytes,
    notes: sessions.notes,
  };
}

/** "30d", "12h", "2w", "30" (days) → whole days, or null. */
export function parseDuration(s: string): number | null {
  const m = /^(\d{1,6})\s*(d|day|days|w|week|weeks|h|hour|hours)?$/i.exec(s.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'd').toLowerCase()[0];
  const days = unit === 'w' ? n * 7 : unit === 'h' ? Math.ceil(n / 24) : n;
  return days <= MAX_DAYS ? days : null;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** "500M", "1.5GB", "10KiB", "2048" → bytes (decimal units, as the app shows sizes), or null. */
export function parseSize(s: string): number | null {
  const m = /^(\d{1,15}(?:\.\d{1,6})?)\s*([a-z]{0,3})$/i.exec(s.trim());
  if (!m) return null;
  const mul = SIZE_UNITS[m[2]!.toLowerCase()];
  return mul === undefined ? null : Math.round(Number(m[1]) * mul);
}

/** The project a --project value names: an id, or a root path of one project. */
function resolveProject(snap: Snapshot, value: string): string {
  if (snap.forest.projectById.has(value) || value === NO_PROJECT_ID) return value;
  const bare = value.replace(/\/+$/, '');
  const byRoot = snap.forest.projects.filter((p) => p.roots.some((r) => r.replace(/\/+$/, '') === bare));
  if (byRoot.length === 1) return byRoot[0]!.id;
  throw new RequestError(`No project "${value.slice(0, 200)}" in this scan; use a project id or root from cleanerx scan --json.`);
}

export function evaluateRules(snap: Snapshot, rules: RetentionRules): RuleMatch {
  validateRules(rules);
  const nodes = snap.forest.nodes;
  const notes: string[] = [];
  const projectId = rules.project === undefined ? undefined : resolveProject(snap, rules.project);

  // Lineage children (across projects too), so "last use" covers every descendant.
  const kids: SessionNode[][] = nodes.map(() => []);
  for (const n of nodes) if (n.parent) kids[n.parent.idx]!.push(n);
  // Tree last use, bottom-up without recursion (fork chains can be thousands deep). null: some node has no time.
  const lastUse = new Float64Array(nodes.length);
  const order: SessionNode[] = [];
  const seen = new Uint8Array(nodes.length);
  for (const root of nodes) {
    if (root.parent) continue;
    const stack = [root];
    while (stack.length) {
      const n = stack.pop()!;
      if (seen[n.idx]) continue;
      seen[n.idx] = 1;
      order.push(n);
      for (const c of kids[n.idx]!) stack.push(c);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    let t = n.s.updatedAt ?? NaN;
    for (const c of kids[n.idx]!) t = Math.max(t, lastUse[c.idx]!);
    for (const d of n.s.deletionDescendantIds) {
      const dn = snap.forest.nodeById.get(d);
      if (dn) t = Math.max(t, dn.s.updatedAt ?? NaN);
    }
    lastUse[n.idx] = t;
  }

  // keep-latest: per project, the N trees (top-level rows of the project) used most recently are kept whole.
  let kept: Uint8Array | null = null;
  if (rules.keepLatest !== undefined) {
    kept = new Uint8Array(nodes.length);
    for (const p of snap.forest.projects) {
      const ranked = [...p.top].sort((a, b) => (lastUse[b.idx]! || 0) - (lastUse[a.idx]! || 0) || (a.s.id < b.s.id ? -1 : 1));
      for (const top of ranked.slice(0, rules.keepLatest)) {
        const stack = [top];
        while (stack.length) {
          const n = stack.pop()!;
          kept[n.idx] = 1;
          for (const c of n.children) stack.push(c);
        }
      }
    }
  }

  // Codex, OpenCode and pi record a parent that is gone (`metadata.missingParentId`); an agent that cannot lose one says why in its labels.
  const noOrphans = snap.installation.labels?.noOrphans;
  if (rules.orphans && noOrphans && nodes.length) notes.push(noOrphans);
  if (rules.empty) {
    const known = nodes.some((n) => typeof n.s.metadata.hasUserMessage === 'boolean');
    if (!known && nodes.length)
      notes.push(`${agentName(snap.agent)}'s records as cleanerx reads them do not tell whether a session has a user message, so --empty matches nothing.`);
  }

  const cutoff = rules.olderThanDays === undefined ? undefined : snap.scannedAt - rules.olderThanDays * DAY;
  const freed = (n: SessionNode): number => {
    let b = n.s.bytes;
    for (const d of n.s.deletionDescendantIds) b += snap.forest.nodeById.get(d)?.s.bytes ?? 0;
    return b;
  };

  const matched: RuleMatchItem[] = [];
  const skipped: RuleMatchItem[] = [];
  let bytes = 0;
  for (const n of nodes) {
    const s = n.s;
    const why: string[] = [];
    if (projectId !== undefined) {
      if (n.projectKey !== projectId) continue;
    }
    if (rules.source !== undefined && s.source !== rules.source) continue;
    if (rules.state !== undefined && s.state !== rules.state) continue;
    if (cutoff !== undefined) {
      const t = lastUse[n.idx]!;
      if (!(t < cutoff)) continue;
      why.push(`tree last used ${Math.floor((snap.scannedAt - t) / DAY)} d ago`);
    }
    if (rules.largerThanBytes !== undefined) {
      const b = freed(n);
      if (!(b > rules.largerThanBytes)) continue;
      why.push(`${formatBytes(b)} > ${formatBytes(rules.largerThanBytes)}`);
    }
    if (kept) {
      if (kept[n.idx]) continue;
      why.push(`not among the ${rules.keepLatest} latest of its project`);
    }
    if (rules.empty) {
      if (s.metadata.hasUserMessage !== false) continue;
      why.push('no user message');
    }
    if (rules.orphans) {
      const gone = missingParent(snap, n);
      if (!gone) continue;
      why.push(`parent ${gone.slice(0, 80)} is gone`);
    }
    const reason = why.length ? why.join('; ') : 'matches every rule';
    const item = { id: s.itemId, title: s.title, bytes: s.bytes, reason };
    const blocked = blockedWhy(snap, n);
    if (blocked) skipped.push({ ...item, reason: blocked });
    else {
      matched.push(item);
      bytes += s.bytes;
    }
  }
  return { matched, skipped, bytes, notes };
}

/** The id of a recorded parent that is not in this scan, or null. */
function missingParent(snap: Snapshot, n: SessionNode): string | null {
  const m = n.s.metadata.missingParentId;
  if (typeof m === 'string' && m) return m;
  const p = n.s.parentId;
  return p && !snap.forest.nodeById.has(p) ? p : null;
}

/** Why a session cannot be planned: its own block, or one of the sessions the agent's route would remove with it. */
function blockedWhy(snap: Snapshot, n: SessionNode): string | null {
  if (!n.s.selectable) return n.s.blockedReason ?? 'cannot be cleaned';
  for (const d of n.s.deletionDescendantIds) {
    const dn = snap.forest.nodeById.get(d);
    if (dn && !dn.s.selectable)
      return `${agentName(snap.agent)} would also remove ${dn.s.title.slice(0, 80)}, which cannot be cleaned: ${dn.s.blockedReason ?? 'blocked'}`;
  }
  return null;
}
