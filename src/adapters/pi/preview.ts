// Bounded, read-only preview of a pi session: user/assistant text and tool
// output, never more than 512 KiB read or 200 blocks kept.

import { readPrefix } from '../../engine/host/fsx.js';
import type { Preview, PreviewBlock } from '../../engine/core/model.js';
import { cleanMultiline } from '../../engine/core/text.js';

const PREVIEW_BYTES = 512 * 1024;
const MAX_BLOCKS = 200;
const TOOL_CHARS = 16 * 1024;

export async function previewPiSession(itemId: string, path: string): Promise<Preview> {
  const prefix = await readPrefix(path, PREVIEW_BYTES);
  const blocks: PreviewBlock[] = [];
  let text = prefix.buf.toString('utf8');
  if (prefix.truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  let cut = prefix.truncated;
  for (const line of text.split('\n')) {
    if (blocks.length >= MAX_BLOCKS) {
      cut = true;
      break;
    }
    if (!line.includes('"message"')) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    const b = toBlock(v);
    if (b) blocks.push(b);
  }
  if (blocks.length === 0) blocks.push({ kind: 'notice', text: 'No user, assistant or tool text in the readable part of this session.' });
  return {
    id: itemId,
    source: 'piSession.readOnly',
    truncated: cut,
    bytesRead: prefix.buf.length,
    blocks,
    warning: cut ? `Truncated at preview limit (${prefix.buf.length} bytes read).` : undefined,
  };
}

function toBlock(v: unknown): PreviewBlock | null {
  if (!v || typeof v !== 'object') return null;
  const e = v as Record<string, unknown>;
  if (e.type !== 'message' || !e.message || typeof e.message !== 'object') return null;
  const m = e.message as Record<string, unknown>;
  switch (m.role) {
    case 'user':
    case 'assistant': {
      const t = contentText(m.content);
      return t ? { kind: 'message', role: m.role, text: cleanMultiline(t, TOOL_CHARS) } : null;
    }
    case 'toolResult': {
      const t = contentText(m.content);
      const title = typeof m.toolName === 'string' ? m.toolName : 'tool';
      return { kind: 'text', title: cleanMultiline(title, 64), text: cleanMultiline(t, TOOL_CHARS) };
    }
    case 'bashExecution': {
      const cmd = typeof m.command === 'string' ? m.command : '';
      const out = typeof m.output === 'string' ? m.output : '';
      return { kind: 'text', title: 'bash', text: cleanMultiline(`${cmd}\n${out}`, TOOL_CHARS) };
    }
    default:
      return null;
  }
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((b) => (b && typeof b === 'object' && (b as Record<string, unknown>).type === 'text' ? String((b as Record<string, unknown>).text ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}
