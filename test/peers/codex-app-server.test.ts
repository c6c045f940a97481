// Peer test: cleanerx's Codex inventory and routes against the real
// `codex app-server` 0.171.0 (the exact-pinned devDependency), offline, with
// HOME, XDG_* and CODEX_HOME inside a temp dir and a fresh hand-written store
// (never a copy of an indexed one). Codex's own listing must equal the
// inventory; the DB fallback and the capability probe must change nothing;
// a stale control socket falls back to a private stdio server.

import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCodex, probeCapabilities, resetSocketBypass } from '../../src/adapters/codex/connection.js';
import type { CodexFixtureManifest } from '../../src/adapters/codex/fixture.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { MEMORY_ITEM } from '../../src/adapters/codex/items.js';
import { controlSocket } from '../../src/adapters/codex/paths.js';
import { NO_EXECUTABLE } from '../../src/adapters/codex/scan.js';
import { UNTITLED } from '../../src/adapters/codex/titles.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { cleanText } from '../../src/engine/core/text.js';
import { buildStore, codexHome, installation, rawClient, rowCount, serverListing, storePicture, type ServerThread } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let manifest: CodexFixtureManifest;
let server: ServerThread[];
let inv: Inventory;

beforeAll(async () => {
  t = makeTempEnv('cleanerx-codex-peer-');
  manifest = buildStore(t, { threads: 30, memories: true, seed: 11 });
  inv = await codexAdapter.scan(installation(t), t.ctx, () => undefined);
  const c = await rawClient(t);
  try {
    server = await serverListing(c);
  } finally {
    await c.close();
  }
}, budget(120_000));
afterAll(() => t?.cleanup());

describe('the inventory is Codex’s own listing', () => {
  it('lists exactly the threads Codex lists, with the same parents, archive states and titles', () => {
    expect(server.length).toBeGreaterThan(40);
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual(server.map((s) => s.id).sort());
    for (const s of server) {
      const mine = byId.get(s.id)!;
      expect(mine.parentId, s.id).toBe(s.parent);
      expect(mine.state, s.id).toBe(s.archived ? 'archived' : 'current');
      expect(mine.title, s.id).toBe(cleanText(s.name ?? '', 200) || cleanText(s.preview, 200) || UNTITLED);
      expect(mine.paths[0]).toBe(s.path);
      expect(mine.recoverable).toBe(false);
      expect(mine.selectable, mine.blockedReason).toBe(true);
    }
  });

  it('matches the hand-written store: subagents two levels deep, archived, named, escape-free titles', () => {
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    for (const f of manifest.threads) {
      const s = byId.get(f.id);
      expect(s, f.id).toBeDefined();
      expect(s!.parentId).toBe(f.parentId);
      expect(s!.state).toBe(f.archived ? 'archived' : 'current');
      if (f.name) expect(s!.title).toBe(f.name);
      expect(s!.named).toBe(Boolean(f.name));
      expect(s!.title).not.toMatch(/\x1b|\x07/);
    }
    expect(manifest.threads.some((f) => f.depth === 2)).toBe(true);
    // A root's deletion scope is its whole spawn subtree.
    for (const root of manifest.threads.filter((f) => f.depth === 0)) {
      const expected = manifest.threads.filter(
        (f) => f.depth > 0 && (f.parentId === root.id || manifest.threads.some((c) => c.id === f.parentId && c.parentId === root.id)),
      );
      expect(byId.get(root.id)!.deletionDescendantIds.sort()).toEqual(expected.map((f) => f.id).sort());
    }
    // Malformed rollouts are not threads.
    const listed = new Set(inv.sessions.flatMap((s) => s.paths));
    for (const m of manifest.malformed) expect(listed.has(m)).toBe(false);
  });

  it('associates projects by the config.toml registry or a Git root; desktop chats stay under No project', () => {
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    const labels = new Map(inv.projects.map((p) => [p.id, p.roots[0]]));
    for (const f of manifest.threads) {
      const s = byId.get(f.id)!;
      expect(s.projectId ? labels.get(s.projectId) : null, `${f.kind} ${f.cwd}`).toBe(f.projectRoot);
    }
    expect(manifest.threads.some((f) => f.kind === 'desktop')).toBe(true);
  });

  it('sizes a thread by its rollout and owned media, and lists orphan media inspect-only', () => {
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    const withMedia = manifest.threads.find((f) => f.media.length)!;
    expect(withMedia).toBeDefined();
    expect(byId.get(withMedia.id)!.paths).toEqual([withMedia.rollout, ...withMedia.media]);
    const orphan = inv.items.find((i) => i.paths[0] === manifest.orphanMedia[0])!;
    expect(orphan.selectable).toBe(false);
    expect(orphan.category).toBe('attachment');
  });

  it('lists memory as one official global item, protected files as protected, and old temp files', () => {
    const mem = inv.items.find((i) => i.id === MEMORY_ITEM)!;
    expect(mem.metadata.route).toBe('official');
    expect(mem.recoverable).toBe(false);
    expect(mem.selectable).toBe(true);
    for (const p of ['auth.json', 'config.toml', 'rules', 'AGENTS.md', 'prompts']) {
      const it = inv.items.find((i) => i.id === `protected:${p}`)!;
      expect(it.category, p).toBe('protected');
      expect(it.selectable).toBe(false);
    }
    expect(inv.items.find((i) => i.id === 'protected:db:state_5.sqlite')?.category).toBe('protected');
    expect(inv.items.find((i) => i.id === 'temporary:.tmp-old-staging')?.selectable).toBe(true);
    expect(inv.items.find((i) => i.id === 'temporary:download.partial')).toBeUndefined();
    expect(inv.items.find((i) => i.id === 'cache:cache')?.selectable).toBe(true);
  });
});

describe('previews', () => {
  it('a preview with no App Server running reads the rollout and starts none (Codex would prune and rewrite its databases)', async () => {
    const f = manifest.threads.find((x) => !x.archived && x.depth === 0)!;
    const before = storePicture(t);
    const p = await codexAdapter.preview(installation(t), [f.rollout], `session:${f.id}`);
    expect(p.source).toBe('rollout.readOnlyFallback');
    expect(p.blocks.find((b) => b.kind === 'message' && b.role === 'user')).toMatchObject({ text: cleanText(f.firstMessage, 10_000) });
    expect(p.blocks.some((b) => b.kind === 'message' && b.role === 'assistant')).toBe(true);
    const fb = await codexAdapter.preview(installation(t, null), [f.rollout], `session:${f.id}`);
    expect(fb.source).toBe('rollout.readOnlyFallback');
    expect(fb.blocks[0]).toMatchObject({ kind: 'message', role: 'user' });
    // Nothing was written: the rollout (which a resumed thread would append to) is byte-identical.
    expect(treeDiff(before, storePicture(t))).toEqual([]);
  });
});

describe('read-only paths change nothing', () => {
  it('the DB fallback (no App Server) lists the same threads read-only, byte for byte without a change', async () => {
    const before = hashTree(t.root, [join(t.root, 'proc')]);
    const fb = await codexAdapter.scan(installation(t, null), t.ctx, () => undefined);
    expect(treeDiff(before, hashTree(t.root, [join(t.root, 'proc')]))).toEqual([]);
    expect(fb.sessions.map((s) => s.id).sort()).toEqual(server.map((s) => s.id).sort());
    for (const s of fb.sessions) {
      expect(s.selectable).toBe(false);
      expect(s.blockedReason).toBe(NO_EXECUTABLE);
    }
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    for (const s of fb.sessions) {
      expect(s.parentId).toBe(byId.get(s.id)!.parentId);
      expect(s.title).toBe(byId.get(s.id)!.title);
      expect(s.state).toBe(byId.get(s.id)!.state);
    }
    expect(fb.warnings.some((w) => /App Server unavailable; using read-only storage scan/.test(w.reason))).toBe(true);
    expect(fb.items.find((i) => i.id === MEMORY_ITEM)?.selectable).toBe(false);
  });

  it('the capability probe never mutates: memory, threads and files stay', async () => {
    const before = storePicture(t);
    const rowsBefore = rowCount(join(codexHome(t), 'state_5.sqlite'), 'threads');
    const conn = await connectCodex(installation(t), t.ctx, { noSocket: true });
    try {
      expect(conn.caps.threadDelete).toBe(true);
      expect(conn.caps.memoryReset).toBe(true);
      // Probing again changes nothing either.
      const again = await probeCapabilities(conn.client);
      expect(again.memoryReset).toBe(true);
    } finally {
      await conn.close();
    }
    expect(treeDiff(before, storePicture(t))).toEqual([]);
    expect(readFileSync(join(codexHome(t), 'memories', 'memory_summary.md'), 'utf8')).toContain('prefers pnpm');
    expect(rowCount(join(codexHome(t), 'state_5.sqlite'), 'threads')).toBe(rowsBefore);
  });

  it('a missing or dangling control socket is not used: the private stdio server answers', async () => {
    const sock = controlSocket(codexHome(t));
    mkdirSync(join(codexHome(t), 'app-server-control'), { recursive: true });
    // A dangling link (the daemon's socket is gone) and a regular file both count as stale.
    symlinkSync(join(t.root, 'no-such-socket'), sock);
    resetSocketBypass();
    try {
      const conn = await connectCodex(installation(t), t.ctx);
      expect(conn.transport).toBe('stdio');
      await conn.close();
      rmSync(sock);
      mkdirSync(join(t.root, 'fake-sock-dir'));
      // A socket path that is a real but silent socket is covered by the listener test; a
      // link to a non-socket must not be used either.
      symlinkSync(join(t.root, 'fake-sock-dir'), sock);
      const again = await codexAdapter.scan(installation(t), t.ctx, () => undefined);
      expect(again.sessions.length).toBe(inv.sessions.length);
      expect(again.sessions.every((s) => s.selectable)).toBe(true);
    } finally {
      rmSync(sock, { force: true });
    }
  });
});
