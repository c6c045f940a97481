// The all-agents Overview's figures, from each agent's latest snapshot: bytes
// on disk per agent and in total, what could be given back now (each byte
// once: a repository and its gc are alternatives, not a sum), the largest
// rows across agents, and the suggested plan — the safe and regenerable
// bytes — with what each of its rows costs.

import { itemCost } from '../../core/item-cost.js';
import type { AgentKind, Item } from '../../core/model.js';
import { itemKindOf, matchItemKinds, reclaimableBytes, SUGGESTED_KINDS, type ItemKind } from './item-kinds.js';
import type { Snapshot } from '../snapshot.js';

/** What removing a row costs, in one word the Overview shows: the agent rebuilds it, a backup restores it, or what the agent loses. */
export type CostWord = 'nothingLost' | 'regenerable' | 'recoverable' | 'lost';

interface AgentFigures {
  agent: AgentKind;
  snapshotId: string;
  scannedAt: number;
  /** On disk under the agent's roots (the attribution walk's allocated bytes; the rows' sum when none ran). */
  onDiskBytes: number;
  /** What of it a row accounts for. */
  attributedBytes: number;
  sessions: number;
  sessionBytes: number;
  /** Outside the sessions, each byte once. */
  reclaimableBytes: number;
  suggestedBytes: number;
  suggestedIds: string[];
}

interface SuggestedRow {
  agent: AgentKind;
  id: string;
  label: string;
  bytes: number;
  kind: ItemKind;
  cost: CostWord;
  /** What the agent loses, in the agent's words ('' when nothing). */
  loses: string;
}

interface LargestRow {
  agent: AgentKind;
  id: string;
  label: string;
  bytes: number;
  /** 'session', or the item's kind. */
  kind: ItemKind | 'session';
}

export interface AllAgentsOverview {
  agents: AgentFigures[];
  totals: { onDiskBytes: number; attributedBytes: number; sessionBytes: number; reclaimableBytes: number; suggestedBytes: number };
  suggested: SuggestedRow[];
  largest: LargestRow[];
}

const LARGEST = 8;

function costOf(snap: Snapshot, it: Item, kind: ItemKind): { cost: CostWord; loses: string } {
  const c = itemCost(it.category, it.recoverable, Boolean(it.metadata.requiresAgentExit), snap.installation.labels?.losses?.[it.category]);
  const said = typeof it.metadata.agentLoses === 'string' ? it.metadata.agentLoses : c.agentLoses;
  // A rewrite that keeps every row and a file nothing refers to lose nothing.
  if (kind === 'gc' || kind === 'compaction' || kind === 'leaked') return { cost: 'nothingLost', loses: '' };
  if (c.regenerable || it.metadata.regenerable === true) return { cost: 'regenerable', loses: '' };
  if (c.recoverable === 'backup') return { cost: 'recoverable', loses: said };
  return { cost: 'lost', loses: said };
}

export function allAgentsOverview(snaps: readonly Snapshot[]): AllAgentsOverview {
  const agents: AgentFigures[] = [];
  const suggested: SuggestedRow[] = [];
  const largest: LargestRow[] = [];
  for (const snap of snaps) {
    const match = matchItemKinds(snap.items, SUGGESTED_KINDS);
    for (const m of match.matched) {
      const it = snap.item(m.id)!;
      suggested.push({ agent: snap.agent, id: m.id, label: it.label, bytes: it.bytes, kind: m.kind, ...costOf(snap, it, m.kind) });
    }
    let sessionBytes = 0;
    for (const n of snap.forest.nodes) sessionBytes += n.s.bytes;
    const rowBytes = sessionBytes + snap.items.reduce((a, i) => a + i.bytes, 0);
    const a = snap.inventory.attribution;
    agents.push({
      agent: snap.agent,
      snapshotId: snap.id,
      scannedAt: snap.scannedAt,
      onDiskBytes: a ? a.totalBytes : rowBytes,
      attributedBytes: a ? a.accountedBytes + a.unrecognizedBytes : rowBytes,
      sessions: snap.forest.nodes.length,
      sessionBytes,
      reclaimableBytes: reclaimableBytes(snap.items),
      suggestedBytes: match.bytes,
      suggestedIds: match.matched.map((m) => m.id),
    });
    for (const n of snap.forest.nodes) consider(largest, { agent: snap.agent, id: n.s.itemId, label: n.s.title, bytes: n.s.bytes, kind: 'session' });
    for (const it of snap.items) {
      const kind = itemKindOf(it);
      if (kind && !it.metadata.unrecognized) consider(largest, { agent: snap.agent, id: it.id, label: it.label, bytes: it.bytes, kind });
    }
  }
  const sum = (f: (x: AgentFigures) => number): number => agents.reduce((n, x) => n + f(x), 0);
  suggested.sort((x, y) => y.bytes - x.bytes);
  return {
    agents,
    totals: {
      onDiskBytes: sum((x) => x.onDiskBytes),
      attributedBytes: sum((x) => x.attributedBytes),
      sessionBytes: sum((x) => x.sessionBytes),
      reclaimableBytes: sum((x) => x.reclaimableBytes),
      suggestedBytes: sum((x) => x.suggestedBytes),
    },
    suggested,
    largest,
  };
}

/** Keeps the LARGEST biggest rows, largest first, without sorting every session. */
function consider(top: LargestRow[], row: LargestRow): void {
  if (top.length >= LARGEST && row.bytes <= top[top.length - 1]!.bytes) return;
  let i = top.length;
  while (i > 0 && top[i - 1]!.bytes < row.bytes) i--;
  top.splice(i, 0, row);
  if (top.length > LARGEST) top.pop();
}
