// Bounded, read-only previews: a transcript's user/assistant text and tool
// output summaries, or a project memory's Markdown files. Explicit `p` only.

import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { listDirSorted, readAtSync, readPrefix } from '../../engine/host/fsx.js';
import type { Preview, PreviewBlock } from '../../engine/core/model.js';
import { cleanMultiline } from '../../engine/core/text.js';

const PREVIEW_BYTES = 512 * 1024;
const MAX_BLOCKS = 200;
const BLOCK_CHARS = 16 * 1024;

export async function previewTranscript(itemId: string, path: string): Promise<Preview> {
  const prefix = await readPrefix(path, PREVIEW_BYTES);
  let text = prefix.buf.toString('utf8');
  if (prefix.truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  const blocks: PreviewBlock[] = [];
  let cut = prefix.truncated;
  for (const line of text.split('\n')) {
    if (blocks.length >= MAX_BLOCKS) {
      cut = true;
      break;
    }
    if (!line.startsWith('{"parentUuid":')) continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (v.isSidechain === true || v.isMeta === true) continue;
    const m = v.message as Record<string, unknown> | undefined;
    if (!m || typeof m !== 'object' || typeof m.role !== 'string') continue;
    const { text: body, tools } = contentOf(m.content);
    if (body) blocks.push({ kind: 'message', role: m.role, text: cleanMultiline(body, BLOCK_CHARS) });
    for (const t of tools) blocks.push({ kind: 'text', title: 'tool output', text: cleanMultiline(t, 2048) });
  }
  if (!blocks.length) blocks.push({ kind: 'notice', text: 'No user or assistant text in the readable part of this transcript.' });
  return {
    id: itemId,
    source: 'claudeTranscript.readOnly',
    truncated: cut,
    bytesRead: prefix.buf.length,
    blocks,
    warning: cut ? `Truncated at preview limit (${prefix.buf.length} bytes read).` : undefined,
  };
}

function contentOf(c: unknown): { text: string; tools: string[] } {
  if (typeof c === 'string') return { text: c, tools: [] };
  const parts: string[] = [];
  const tools: string[] = [];
  if (Array.isArray(c)) {
    for (const p of c) {
      if (typeof p === 'string') parts.push(p);
      else if (p && typeof p === 'object') {
        const o = p as Record<string, unknown>;
        if (o.type === 'text' && typeof o.text === 'string') parts.push(o.text);
        else if (o.type === 'tool_result') tools.push(typeof o.content === 'string' ? o.content : contentOf(o.content).text);
        else if (o.type === 'tool_use' && typeof o.name === 'string') parts.push(`[tool: ${o.name}]`);
      }
    }
  }
  return { text: parts.join('\n'), tools };
}

export function previewMemory(itemId: string, dir: string): Preview {
  const blocks: PreviewBlock[] = [];
  let budget = PREVIEW_BYTES;
  let read = 0;
  let cut = false;
  const buf = Buffer.allocUnsafe(PREVIEW_BYTES);
  for (const e of listDirSorted(dir)) {
    if (!e.name.endsWith('.md')) continue;
    if (!e.isFile()) {
      blocks.push({ kind: 'notice', text: `${e.name} is not a regular file; not opened.` });
      continue;
    }
    if (budget <= 0) {
      cut = true;
      break;
    }
    const fd = openSync(join(dir, e.name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) continue;
      const n = readAtSync(fd, buf, Math.min(budget, st.size), 0);
      if (n < st.size) cut = true;
      budget -= n;
      read += n;
      blocks.push({ kind: 'text', title: e.name, text: cleanMultiline(buf.toString('utf8', 0, n), BLOCK_CHARS) });
    } finally {
      closeSync(fd);
    }
  }
  if (!blocks.length) blocks.push({ kind: 'notice', text: 'This memory directory holds no Markdown files.' });
  return {
    id: itemId,
    source: 'claudeMemoryMarkdown.readOnly',
    truncated: cut,
    bytesRead: read,
    blocks,
    warning: cut ? 'Truncated at preview limit.' : undefined,
  };
}
