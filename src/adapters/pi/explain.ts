// Why a pi session is fat: its entries by type (issue #29 part 5) — tool
// results, images, thinking, compactions — over the session's JSONL file.

import { type ExplainKind, ExplainTally, type SessionExplain } from '../../engine/core/explain.js';
import { explainPaths, headTypes } from '../shared/explain-files.js';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function classify(rec: Record<string, unknown> | null, head: string): ExplainKind | null {
  if (!rec) {
    const types = headTypes(head, 8);
    if (!types.length) return null;
    if (types.includes('image')) return 'images';
    if (types.includes('compaction')) return 'compaction';
    return head.includes('"role":"toolResult"') ? 'toolResults' : 'other';
  }
  const type = rec.type;
  if (typeof type !== 'string') return null;
  if (type === 'session') return 'meta';
  if (type === 'compaction' || type === 'branch_summary') return 'compaction';
  if (type === 'model_change' || type === 'thinking_level_change') return 'context';
  if (type !== 'message') return 'events';
  const m = isObj(rec.message) ? rec.message : {};
  const blocks = new Set(Array.isArray(m.content) ? m.content.filter(isObj).map((b) => b.type) : []);
  if (blocks.has('image')) return 'images';
  if (m.role === 'toolResult') return 'toolResults';
  if (blocks.has('thinking')) return 'thinking';
  if (blocks.has('toolCall')) return 'toolCalls';
  return 'messages';
}

export async function explainPi(paths: readonly string[], itemId: string): Promise<SessionExplain> {
  const tally = new ExplainTally();
  await explainPaths(paths, (p) => p.endsWith('.jsonl'), classify, tally);
  return tally.result('pi', itemId);
}
