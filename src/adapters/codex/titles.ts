// A thread's display title, exactly in the documented order: threads.name
// (the server's name, else the state DB's), session_index.thread_name,
// threads.title, threads.first_user_message (the DB's, else the server's
// preview), then "Untitled session" — 未命名会话 under a Chinese locale. Blank
// values are skipped; the cwd's last component is never a title.

import type { HostContext } from '../../engine/core/adapter.js';
import { cleanText } from '../../engine/core/text.js';

export const UNTITLED = 'Untitled session';
export const UNTITLED_ZH = '未命名会话';
const MAX_TITLE = 200;

interface TitleSources {
  serverName?: string | null;
  dbName?: string | null;
  indexName?: string | null;
  dbTitle?: string | null;
  dbFirstUserMessage?: string | null;
  serverPreview?: string | null;
}

function isChineseLocale(env: HostContext['env']): boolean {
  const v = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return /^zh([_-]|$)/i.test(v);
}

export function untitled(env: HostContext['env']): string {
  return isChineseLocale(env) ? UNTITLED_ZH : UNTITLED;
}

/** The chosen title and whether it is an explicit name (not derived from a message). */
export function chooseTitle(s: TitleSources, env: HostContext['env']): { title: string; named: boolean } {
  const order: [string | null | undefined, boolean][] = [
    [s.serverName, true],
    [s.dbName, true],
    [s.indexName, true],
    [s.dbTitle, false],
    [s.dbFirstUserMessage, false],
    [s.serverPreview, false],
  ];
  for (const [v, named] of order) {
    if (typeof v !== 'string') continue;
    const t = cleanText(v, MAX_TITLE);
    if (t) return { title: t, named };
  }
  return { title: untitled(env), named: false };
}
