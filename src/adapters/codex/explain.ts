// Why a Codex rollout is fat: each line's record type (issue #29 part 5).
// What makes them big in 2026 (openai/codex #41269, #24948, #34061): command
// output stored as the model's function_call_output and again in the
// exec_command_end event, compaction `replacement_history`, images, reasoning,
// and a legacy fork's copy of its parent's history. A legacy fork's copied
// lines keep their parent's timestamps, so a line older than the fork's own
// session_meta is counted as its fork prefix. A `.zst` rollout is not
// decompressed here (its bytes count as other records).

import { promises as fsp } from 'node:fs';
import { type ExplainKind, ExplainTally, type SessionExplain } from '../../engine/core/explain.js';
import { t } from '../../engine/i18n/index.js';
import { explainPaths, headTypes } from '../shared/explain-files.js';

const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output']);
const CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call']);
const OUTPUT_EVENTS = new Set(['exec_command_end', 'exec_command_output_delta', 'patch_apply_end', 'mcp_tool_call_end', 'view_image_tool_call']);
const REASONING_EVENTS = new Set(['agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_delta', 'agent_reasoning_section_break']);
const COMPACTION = new Set(['compacted', 'compaction', 'compaction_summary', 'context_compacted']);

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when a message's content holds an image (input_image / a data: URL). */
function hasImage(payload: Record<string, unknown>): boolean {
  const content = payload.content ?? payload.images;
  if (!Array.isArray(content)) return false;
  return content.some((c) => (isObj(c) && (c.type === 'input_image' || c.type === 'image')) || (typeof c === 'string' && c.startsWith('data:image/')));
}

function kindOf(type: string, payloadType: string, image: boolean): ExplainKind {
  if (COMPACTION.has(type) || COMPACTION.has(payloadType)) return 'compaction';
  if (type === 'session_meta') return 'meta';
  if (type === 'turn_context') return 'context';
  if (type === 'response_item') {
    if (OUTPUT_ITEMS.has(payloadType)) return 'commandOutput';
    if (CALL_ITEMS.has(payloadType)) return 'toolCalls';
    if (payloadType === 'reasoning') return 'reasoning';
    if (payloadType === 'message') return image ? 'images' : 'messages';
    return 'other';
  }
  if (type === 'event_msg') {
    if (OUTPUT_EVENTS.has(payloadType)) return 'commandOutputEvents';
    if (REASONING_EVENTS.has(payloadType)) return 'reasoning';
    return image ? 'images' : 'events';
  }
  return 'other';
}

export async function explainCodex(paths: readonly string[], itemId: string): Promise<SessionExplain> {
  const tally = new ExplainTally();
  // The fork's own start: set by its session_meta (the first line).
  let forkedAt: string | null = null;
  let first = true;
  const classify = (rec: Record<string, unknown> | null, head: string): ExplainKind | null => {
    const wasFirst = first;
    first = false;
    if (!rec) {
      const [type = '', payloadType = ''] = headTypes(head, 2);
      if (!type) return null;
      return kindOf(type, payloadType, head.includes('"input_image"') || head.includes('data:image/'));
    }
    if (typeof rec.type !== 'string') return null;
    const payload = isObj(rec.payload) ? rec.payload : {};
    const ts = typeof rec.timestamp === 'string' ? rec.timestamp : null;
    if (wasFirst && rec.type === 'session_meta' && typeof payload.forked_from_id === 'string' && !isObj(payload.history_base)) {
      forkedAt = typeof payload.timestamp === 'string' ? payload.timestamp : ts;
    } else if (forkedAt && ts && ts < forkedAt) return 'forkPrefix';
    return kindOf(rec.type, typeof payload.type === 'string' ? payload.type : '', hasImage(payload));
  };
  for (const p of paths) {
    if (!p.endsWith('.jsonl.zst')) continue;
    const st = await fsp.lstat(p).catch(() => null);
    if (st?.isFile()) {
      tally.add('other', st.size);
      tally.notes.push(t('explain.note.compressed'));
    }
  }
  await explainPaths(
    paths.filter((p) => !p.endsWith('.jsonl.zst')),
    (p) => p.endsWith('.jsonl'),
    classify,
    tally,
  );
  return tally.result('codex', itemId);
}
