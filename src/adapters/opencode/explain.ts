// Why an OpenCode session is fat: its message and part rows by part type
// (issue #29 part 5), summed inside SQLite (length of each row's data, never
// its content in this process), through the quiet read-only view
// (db-open.ts → engine/host/sqlite-quiet.ts: no -wal, -shm or other side
// file is created beside the store). Session files outside the database
// (session_diff) count as side files.

import { type ExplainKind, ExplainTally, type SessionExplain } from '../../engine/core/explain.js';
import { t } from '../../engine/i18n/index.js';
import { explainPaths } from '../shared/explain-files.js';
import { describeSqliteError, openReadOnly } from './db-open.js';
import { readSchema } from './schema.js';

/** OpenCode 1.18's part types (packages/opencode/src/session/message-v2.ts) to the shared kinds. */
const PART_KINDS: Readonly<Record<string, ExplainKind>> = {
  text: 'messages',
  tool: 'toolResults',
  reasoning: 'reasoning',
  file: 'images',
  patch: 'patches',
  snapshot: 'fileSnapshots',
  'step-start': 'steps',
  'step-finish': 'steps',
  compaction: 'compaction',
  agent: 'events',
  subtask: 'events',
  retry: 'events',
};

export async function explainOpencode(paths: readonly string[], itemId: string, sessionId: string, db: string | undefined): Promise<SessionExplain> {
  const tally = new ExplainTally();
  if (!db) tally.notes.push(t('explain.note.noDb'));
  else {
    const opened = openReadOnly(db);
    if (!opened.ok) tally.notes.push(t('explain.note.dbError', { reason: opened.reason.replace(/\.$/, '') }));
    else {
      try {
        if (readSchema(opened.db).messageProjection) {
          const parts = opened.db
            .prepare(
              `SELECT CASE WHEN json_valid(data) THEN json_extract(data, '$.type') END AS type, COUNT(*) AS n, SUM(length(CAST(data AS BLOB))) AS bytes
                 FROM part WHERE session_id = ? GROUP BY 1`,
            )
            .all(sessionId) as { type: unknown; n: number; bytes: number | null }[];
          for (const p of parts) {
            const kind = typeof p.type === 'string' ? (PART_KINDS[p.type] ?? 'other') : 'unreadable';
            tally.add(kind, p.bytes ?? 0, p.n);
          }
          const msg = opened.db.prepare('SELECT COUNT(*) AS n, SUM(length(CAST(data AS BLOB))) AS bytes FROM message WHERE session_id = ?').get(sessionId) as {
            n: number;
            bytes: number | null;
          };
          if (msg.n) tally.add('meta', msg.bytes ?? 0, msg.n);
        }
      } catch (e) {
        tally.notes.push(t('explain.note.dbError', { reason: describeSqliteError(e).replace(/\.$/, '') }));
      } finally {
        opened.close();
      }
    }
  }
  // The database itself is not one of the session's own paths; its other files are.
  await explainPaths(
    paths.filter((p) => p !== db),
    () => false,
    () => 'other',
    tally,
  );
  return tally.result('opencode', itemId);
}
