// Retention's --empty and --orphans on every agent that can tell, on the
// project's fixture stores through the real adapters: each agent's record says
// whether a session holds a user message (Claude Code from the bounded
// transcript read, OpenCode from its message table, pi from its session file)
// and which parent is gone (OpenCode's parent_id, pi's parentSession file).
// An answer the adapter could not read whole stays unknown and never matches.

import Database from 'better-sqlite3';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { evaluateRules, type RetentionRules } from '../../src/engine/inventory/retention/rules.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { buildStore, installation, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const CLAUDE_READ = 64 * 1024;

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
  t.ctx.now = () => NOW;
});
afterEach(() => t.cleanup());

/** Every session a rule selects, matched or skipped, by session id. */
const selected = (snap: Snapshot, r: RetentionRules): string[] => {
  const m = evaluateRules(snap, r);
  return [...m.matched, ...m.skipped].map((i) => i.id.slice('session:'.length)).sort();
};
const lines = (file: string): unknown[] =>
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return null;
      }
    });
const rows = (file: string): Record<string, unknown>[] => lines(file).filter((v): v is Record<string, unknown> => !!v && typeof v === 'object');

describe('pi', () => {
  it('--orphans: exactly the forks whose parent file is gone; a parent that exists but is no session is not gone', async () => {
    const m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 3, sessionsPerProject: 6, forkRate: 0.7, now: NOW, edgeCases: true });
    const kidsOf = (id: string): string[] => m.sessions.filter((s) => s.parentId === id).map((s) => s.id);
    const parents = m.sessions.filter((s) => s.kind === 'root' && kidsOf(s.id).length > 0);
    expect(parents.length).toBeGreaterThan(1);
    // Deleted: its forks (in its bucket, in another one, by a relative path) are orphans.
    const victim = parents.find((p) => m.sessions.some((s) => s.parentId === p.id && s.kind !== 'fork')) ?? parents[0]!;
    rmSync(victim.file);
    // Still there but unreadable as a session: its forks are not orphans.
    const broken = parents.find((p) => p !== victim)!;
    writeFileSync(broken.file, '{"type":"not-a-session"}\n');
    const dangling = m.sessions.find((s) => s.firstUser === 'dangling parent')!;
    const expected = [...kidsOf(victim.id), dangling.id].sort();

    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    const snap = engine.snapshot(sum.snapshotId);
    expect(selected(snap, { orphans: true })).toEqual(expected);
    const { file } = await engine.retentionPlan(sum.snapshotId, { orphans: true });
    expect(file.items.map((i) => i.id.slice(8)).sort()).toEqual(expected);
    expect(file.items.find((i) => i.id === `session:${dangling.id}`)!.reason).toBe('parent 2020-01-01T00-00-00-000Z_gone.jsonl is gone');
    expect(file.items.find((i) => i.id === `session:${kidsOf(victim.id)[0]}`)!.reason).toBe(`parent ${basename(victim.file)} is gone`);
    expect(evaluateRules(snap, { orphans: true }).notes).toEqual([]);
    for (const k of kidsOf(broken.id)) expect(snap.forest.nodeById.get(k)!.s.metadata.missingParentId).toBeUndefined();
  });

  it('--empty: exactly the sessions with no user message with text, as the files say', async () => {
    const m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 4, forkRate: 0.5, now: NOW, edgeCases: true });
    const textOf = (c: unknown): string =>
      typeof c === 'string'
        ? c
        : Array.isArray(c)
          ? c.map((b: { type?: string; text?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
          : '';
    const saysSomething = (file: string): boolean =>
      rows(file).some(
        (r) => r.type === 'message' && (r.message as { role?: string })?.role === 'user' && textOf((r.message as { content?: unknown }).content) !== '',
      );
    const expected = m.sessions
      .filter((s) => !saysSomething(s.file))
      .map((s) => s.id)
      .sort();
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    expect(selected(engine.snapshot(sum.snapshotId), { empty: true })).toEqual(expected);
    // Both rules: only an empty orphan (none in this store).
    expect(selected(engine.snapshot(sum.snapshotId), { empty: true, orphans: true })).toEqual([]);
  });
});

describe('Claude Code', () => {
  it('--empty: a transcript read whole with no user row matches; one too long to read whole never does; --orphans says why it cannot arise', async () => {
    const m = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 5, now: NOW, cwdRoot: join(t.env.HOME!, 'src') });
    const bucket = dirname(m.sessions[0]!.file);
    const emptyId = '0b0e0000-0000-4000-8000-000000000001';
    const longId = '0b0e0000-0000-4000-8000-000000000002';
    const mode = (id: string): string => JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId: id });
    writeFileSync(
      join(bucket, `${emptyId}.jsonl`),
      `${mode(emptyId)}\n${JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: {}, isSnapshotUpdate: false })}\n`,
    );
    // No user row anywhere, but its middle is never read: unknown.
    const assistant = JSON.stringify({
      type: 'assistant',
      sessionId: longId,
      message: { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(4000) }] },
    });
    writeFileSync(join(bucket, `${longId}.jsonl`), `${mode(longId)}\n${`${assistant}\n`.repeat(60)}`);
    expect(statSync(join(bucket, `${longId}.jsonl`)).size).toBeGreaterThan(2 * CLAUDE_READ);

    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('claude');
    const snap = engine.snapshot(sum.snapshotId);
    // The fixture's own transcripts, judged from the whole file: small and without a user row.
    const fixtureEmpty = m.sessions
      .filter((s) => snap.forest.nodeById.has(s.id) && statSync(s.file).size <= CLAUDE_READ && !rows(s.file).some((r) => r.type === 'user'))
      .map((s) => s.id);
    expect(selected(snap, { empty: true })).toEqual([emptyId, ...fixtureEmpty].sort());
    expect(snap.forest.nodeById.get(longId)!.s.metadata.hasUserMessage).toBeUndefined();
    const used = m.sessions.filter((s) => rows(s.file).some((r) => r.type === 'user'));
    expect(used.length).toBeGreaterThan(3);
    for (const s of used) if (snap.forest.nodeById.has(s.id)) expect(snap.forest.nodeById.get(s.id)!.s.metadata.hasUserMessage).toBe(true);
    const { file } = await engine.retentionPlan(sum.snapshotId, { empty: true });
    expect(file.items.map((i) => i.id)).toContain(`session:${emptyId}`);
    expect(file.items.find((i) => i.id === `session:${emptyId}`)!.reason).toBe('no user message');

    const o = evaluateRules(snap, { orphans: true });
    expect(o.matched).toEqual([]);
    expect(o.notes).toEqual([
      expect.stringMatching(/^Claude Code keeps a session's subagents inside that session's own folder, so no session outlives its parent/),
    ]);
  });
});

describe('OpenCode', () => {
  let template: Template;
  beforeAll(async () => {
    template = await makeTemplate();
  }, 60_000);
  afterAll(() => template?.cleanup());

  it('--empty from the message table and --orphans from parent_id: exactly the expected sessions', async () => {
    const m = buildStore(t, template, { orphans: 2, rootsPerProject: 4, childrenPerRoot: 2 });
    const roots = m.sessions.filter((s) => s.kind === 'root');
    const db = new Database(t.env.OPENCODE_DB!);
    const noRows = roots[0]!.id;
    const assistantOnly = roots[1]!.id;
    const unreadable = roots[2]!.id;
    db.prepare('DELETE FROM message WHERE session_id = ?').run(noRows);
    db.prepare(`DELETE FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user'`).run(assistantOnly);
    db.prepare(`DELETE FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user'`).run(unreadable);
    db.prepare(`UPDATE message SET data = '{"role": not json' WHERE session_id = ?`).run(unreadable);
    // A parent deleted behind OpenCode's back (no cascade): its children are orphans.
    const gone = m.sessions.find(
      (s) => s.kind === 'root' && m.sessions.some((c) => c.parentId === s.id) && ![noRows, assistantOnly, unreadable].includes(s.id),
    )!;
    db.pragma('foreign_keys = OFF');
    db.prepare('DELETE FROM session WHERE id = ?').run(gone.id);
    // Closed the way OpenCode ends (a reader still open: no checkpoint, -wal and -shm stay).
    const reader = new Database(t.env.OPENCODE_DB!, { readonly: true, fileMustExist: true });
    reader.prepare('SELECT 1').get();
    db.close();
    reader.close();

    const inv = await opencodeAdapter.scan(installation(t), t.ctx, () => undefined);
    const snap = new Snapshot('opencode', installation(t), inv, NOW, 1);
    expect(selected(snap, { empty: true })).toEqual([noRows, assistantOnly].sort());
    expect(snap.forest.nodeById.get(unreadable)!.s.metadata.hasUserMessage).toBeUndefined();
    expect(inv.sessions.filter((s) => s.metadata.hasUserMessage === true)).toHaveLength(inv.sessions.length - 3);

    const orphans = [...m.sessions.filter((s) => s.kind === 'orphan').map((s) => s.id), ...m.sessions.filter((s) => s.parentId === gone.id).map((s) => s.id)];
    expect(orphans.length).toBeGreaterThan(2);
    expect(selected(snap, { orphans: true })).toEqual(orphans.sort());
    const r = evaluateRules(snap, { orphans: true });
    expect(r.notes).toEqual([]);
    expect(r.matched.find((i) => i.id === `session:${m.sessions.find((s) => s.parentId === gone.id)!.id}`)?.reason).toBe(`parent ${gone.id} is gone`);
    expect(selected(snap, { empty: true, orphans: true })).toEqual([]);
  });
});
