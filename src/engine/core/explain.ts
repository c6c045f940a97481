// Why a session is fat: its bytes by record type (issue #29 part 5). The
// adapters stream their own files and tally here; this module keeps the
// kinds language-neutral (the JSON's codes) and words them for the pane.

import { formatBytes } from './format.js';
import { type MessageKey, t } from '../i18n/index.js';
import type { AgentKind, PreviewBlock } from './model.js';

const EXPLAIN_KINDS = [
  'commandOutput',
  'commandOutputEvents',
  'compaction',
  'images',
  'reasoning',
  'thinking',
  'forkPrefix',
  'toolResults',
  'toolCalls',
  'fileSnapshots',
  'patches',
  'steps',
  'messages',
  'events',
  'context',
  'meta',
  'sideFiles',
  'other',
  'unreadable',
] as const;
export type ExplainKind = (typeof EXPLAIN_KINDS)[number];

interface ExplainBucket {
  kind: ExplainKind;
  bytes: number;
  records: number;
}

export interface SessionExplain {
  id: string;
  agent: AgentKind;
  /** Every byte counted (the buckets add up to it). */
  totalBytes: number;
  /** Largest first; empty buckets are left out. */
  buckets: ExplainBucket[];
  /** Plain sentences: what could not be read, what was left out. */
  notes: string[];
}

export class ExplainTally {
  private readonly sums = new Map<ExplainKind, ExplainBucket>();
  readonly notes: string[] = [];

  add(kind: ExplainKind, bytes: number, records = 1): void {
    const b = this.sums.get(kind);
    if (b) {
      b.bytes += bytes;
      b.records += records;
    } else this.sums.set(kind, { kind, bytes, records });
  }

  result(agent: AgentKind, id: string): SessionExplain {
    const buckets = [...this.sums.values()].filter((b) => b.bytes > 0 || b.records > 0).sort((a, b) => b.bytes - a.bytes || a.kind.localeCompare(b.kind));
    return { id, agent, totalBytes: buckets.reduce((n, b) => n + b.bytes, 0), buckets, notes: [...this.notes] };
  }
}

/** The pane's block: "command output  1.2 GB  64%" per kind, then the notes. */
export function explainBlocks(e: SessionExplain): PreviewBlock[] {
  const total = e.totalBytes || 1;
  const lines = e.buckets.map((b) => {
    const share = `${Math.round((b.bytes / total) * 100)}%`.padStart(4);
    return `${t(`explain.kind.${b.kind}` as MessageKey).padEnd(26)} ${formatBytes(b.bytes).padStart(9)} ${share}  ${t('explain.records', { count: b.records })}`;
  });
  const blocks: PreviewBlock[] = [
    { kind: 'text', title: t('explain.title', { bytes: formatBytes(e.totalBytes) }), text: lines.join('\n') || t('explain.empty') },
  ];
  for (const n of e.notes) blocks.push({ kind: 'notice', text: n });
  return blocks;
}
