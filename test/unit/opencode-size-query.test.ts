// The scan's one grouped statement for session sizes and user messages
// (readSizesAndUsers) against the per-table statements it replaces
// (readSizes + readUserMessages): the same answers on a store made by the
// real `opencode` with hostile rows added, on a schema whose owner column
// declares a collation, and on a database with one unreadable table.

import Database from 'better-sqlite3';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeQuietly, openReadOnly } from '../../src/adapters/opencode/db-open.js';
import { readSizes, readSizesAndUsers, readUserMessages } from '../../src/adapters/opencode/db-reader.js';
import { readSchema } from '../../src/adapters/opencode/schema.js';
import { buildStore, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

type Answer = { sizes: [string, number][]; failed: string[]; users: [string, boolean | null][] | null };

const sortedEntries = <V>(m: Map<string, V>): [string, V][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function answers(path: string): { separate: Answer; combined: Answer } {
  const opened = openReadOnly(path);
  if (!opened.ok) throw new Error(opened.reason);
  try {
    const schema = readSchema(opened.db);
    const s = readSizes(opened.db, schema);
    const u = readUserMessages(opened.db, schema);
    const c = readSizesAndUsers(opened.db, schema);
    return {
      separate: { sizes: sortedEntries(s.sizes), failed: s.failed, users: u && sortedEntries(u) },
      combined: { sizes: sortedEntries(c.sizes), failed: c.failed, users: c.users && sortedEntries(c.users) },
    };
  } finally {
    closeQuietly(opened.db);
  }
}

describe('readSizesAndUsers answers what readSizes and readUserMessages answer', () => {
  it('on a real store with hostile rows: non-text owners, unreadable message data, v2 input and messages, todos, events', () => {
    t = makeTempEnv();
    const m = buildStore(t, template, { projects: 2, rootsPerProject: 4, edgeCases: true });
    const [a, b, c] = m.sessions.map((s) => s.id);
    const w = new Database(t.env.OPENCODE_DB!, { fileMustExist: true });
    w.pragma('foreign_keys = OFF');
    const msg = w.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, 1, 1, ?)');
    msg.run('msg_h1', a, 'not json {');
    msg.run('msg_h6', 'ses_unreadable_only_000000', 'not json {');
    msg.run('msg_h2', b, Buffer.from('{"role":"user"}'));
    msg.run('msg_h3', 42, '{"role":"user"}');
    msg.run('msg_h4', Buffer.from('ses_blob'), '{"role":"user"}');
    msg.run('msg_h5', 'ses_only_messages_here_000', '{"role":"assistant"}');
    w.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_h1', 'msg_h1', ?, 1, 1, ?)").run(
      c,
      'p'.repeat(5000),
    );
    const inp = w.prepare("INSERT INTO session_input (id, session_id, prompt, delivery, admitted_seq, time_created) VALUES (?, ?, 'hello', 'queued', 1, 1)");
    inp.run('inp_h1', c);
    inp.run('inp_h2', 'ses_input_only_000000000000');
    w.prepare("INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES ('sm_h1', ?, 'user', 1, 1, 1, '{}')").run(a);
    w.prepare(
      "INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES (?, 'do it', 'open', 'high', 1, 1, 1)",
    ).run(b);
    w.prepare("INSERT INTO event (id, aggregate_id, seq, type, data) VALUES ('evt_h1', ?, 999, 'x', '{}')").run('ses_only_events_here_00000');
    // The last connection to close would remove -wal and -shm; a reader kept open leaves them, as OpenCode does.
    const reader = new Database(t.env.OPENCODE_DB!, { readonly: true, fileMustExist: true });
    reader.prepare('SELECT 1').get();
    w.close();
    reader.close();
    const { separate, combined } = answers(t.env.OPENCODE_DB!);
    expect(separate.sizes.length).toBeGreaterThan(m.sessions.length - 3);
    expect(separate.users?.some(([, v]) => v === null)).toBe(true);
    expect(separate.users?.some(([, v]) => v === true)).toBe(true);
    expect(combined).toEqual(separate);
  });

  /** A database of our own making with the tables the reader looks at (not an OpenCode store). */
  function syntheticDb(path: string, ownerCollation: string): void {
    const d = new Database(path);
    d.pragma('journal_mode = DELETE');
    d.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER, time_archived INTEGER);
      CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT, name TEXT);
      CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT ${ownerCollation}, data TEXT);
      CREATE TABLE part (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
      CREATE TABLE todo (session_id TEXT, content TEXT, status TEXT);`);
    const ins = d.prepare('INSERT INTO message (id, session_id, data) VALUES (?, ?, ?)');
    ins.run('m1', 'ses_A', '{"role":"assistant"}');
    ins.run('m2', 'ses_a', '{"role":"user"}');
    ins.run('m3', 'ses_b', '{"role":"assistant"}');
    d.prepare("INSERT INTO part (id, session_id, data) VALUES ('p1', 'ses_A', 'xyz')").run();
    const todo = d.prepare('INSERT INTO todo (session_id, content, status) VALUES (?, ?, ?)');
    for (let i = 0; i < 400; i++) todo.run(`ses_t${i}`, 'c'.repeat(300), 'open');
    d.close();
  }

  it('on an owner column that declares a collation (grouped per table, as before)', () => {
    t = makeTempEnv();
    const path = join(t.root, 'collate.db');
    syntheticDb(path, 'COLLATE NOCASE');
    const { separate, combined } = answers(path);
    // NOCASE folds ses_A and ses_a into one group per table: one grouping over all tables would not.
    expect(separate.sizes.filter(([id]) => id.toLowerCase() === 'ses_a')).toHaveLength(1);
    expect(combined).toEqual(separate);
  });

  it('on a database with one unreadable table (that table named as failed, the rest counted)', () => {
    t = makeTempEnv();
    const path = join(t.root, 'corrupt.db');
    syntheticDb(path, '');
    const meta = new Database(path, { readonly: true });
    const pageSize = Number(meta.pragma('page_size', { simple: true }));
    const root = Number((meta.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'todo'").get() as { rootpage: number }).rootpage);
    meta.close();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
    closeSync(fd);
    const { separate, combined } = answers(path);
    expect(separate.failed).toEqual(['todo']);
    expect(separate.sizes.map(([id]) => id)).toEqual(['ses_A', 'ses_a', 'ses_b']);
    expect(combined).toEqual(separate);
  });
});
