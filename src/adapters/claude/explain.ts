// Why a Claude Code session is fat: each transcript line's record type
// (issue #29 part 5) — tool results (the tool_result block and its
// `toolUseResult` copy), images, thinking, file-history snapshots — over the
// transcript and every transcript of its side dir (subagents); the rest of
// the side dir (tool-results files, …) counts as side files.

import { type ExplainKind, ExplainTally, type SessionExplain } from '../../engine/core/explain.js';
import { explainPaths, headTypes } from '../shared/explain-files.js';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const META = new Set(['custom-title', 'ai-title', 'last-prompt', 'tag', 'agent-name', 'relocated', 'mode', 'pr-link']);

function blockTypes(rec: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const content = isObj(rec.message) ? rec.message.content : undefined;
  if (!Array.isArray(content)) return out;
  for (const b of content) {
    if (!isObj(b) || typeof b.type !== 'string') continue;
    out.add(b.type);
    // A tool result can carry an image of its own (a screenshot).
    if (b.type === 'tool_result' && Array.isArray(b.content) && b.content.some((c) => isObj(c) && c.type === 'image')) out.add('image');
  }
  return out;
}

function classify(rec: Record<string, unknown> | null, head: string): ExplainKind | null {
  if (!rec) {
    const types = headTypes(head, 8);
    if (!types.length) return null;
    if (types.includes('file-history-snapshot')) return 'fileSnapshots';
    if (types.includes('image')) return 'images';
    if (types.includes('tool_result')) return 'toolResults';
    if (types.includes('thinking') || types.includes('redacted_thinking')) return 'thinking';
    return 'other';
  }
  const type = rec.type;
  if (typeof type !== 'string') return null;
  if (type === 'file-history-snapshot') return 'fileSnapshots';
  if (type === 'summary' || rec.isCompactSummary === true || rec.subtype === 'compact_boundary') return 'compaction';
  if (META.has(type)) return 'meta';
  if (type === 'user' || type === 'assistant') {
    const blocks = blockTypes(rec);
    if (blocks.has('image')) return 'images';
    if (blocks.has('tool_result') || rec.toolUseResult !== undefined) return 'toolResults';
    if (blocks.has('thinking') || blocks.has('redacted_thinking')) return 'thinking';
    if (blocks.has('tool_use')) return 'toolCalls';
    return 'messages';
  }
  return 'events';
}

export async function explainClaude(paths: readonly string[], itemId: string): Promise<SessionExplain> {
  const tally = new ExplainTally();
  await explainPaths(paths, (p) => p.endsWith('.jsonl'), classify, tally);
  return tally.result('claude', itemId);
}
