// The rule "a failed read is never evidence of absence" (#25.2), across the
// four adapters: with the database, index or listing a label depends on made
// unreadable, no row says a session is gone ("no session left", "orphan",
// "empty", "no longer exists", "without a transcript") and nothing that rests
// on that claim is offered.

import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../src/adapters/claude/index.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import type { Installation, Inventory } from '../../src/engine/core/model.js';
import { buildStore as buildCodex, installation as codexInstallation } from '../helpers/codex.js';
import { buildStore as buildOpencode, dataDir, installation as opencodeInstallation, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { makeSnapshotRepo } from '../peers/opencode-reclaim-store.js';

const GONE = /no session left|orphan|\bempty\b|no longer exists|without a transcript/i;

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

/** No row claims absence; returns the inventory for the adapter's own checks. */
function expectNoAbsenceClaim(inv: Inventory): Inventory {
  for (const i of inv.items) {
    const text = `${i.label} ${i.subtitle ?? ''} ${String(i.metadata.agentLoses ?? '')}`;
    expect(text, i.id).not.toMatch(GONE);
  }
  return inv;
}

const inst = (agent: Installation['agent'], home: string): Installation => ({
  agent,
  displayName: agent,
  memoryNotice: '',
  warnings: [],
  home,
  homeSource: 'default',
  state: 'dataOnly',
  executable: null,
  version: null,
});

describe('a failed read is never evidence of absence', () => {
  it('OpenCode: an unreadable database names no snapshot repository unused', async () => {
    t = makeTempEnv();
    const m = buildOpencode(t, template, { git: true });
    makeSnapshotRepo(dataDir(t), m.projects[0]!.id, m.projects[0]!.worktree, 2);
    makeSnapshotRepo(dataDir(t), 'f'.repeat(40), join(t.root, 'work', 'gone'), 1);
    mkdirSync(join(dataDir(t), 'storage', 'session_diff'), { recursive: true });
    writeFileSync(join(dataDir(t), 'storage', 'session_diff', 'ses_gone1.json'), '[]');
    writeFileSync(t.env.OPENCODE_DB!, Buffer.alloc(8192, 0x41));
    const inv = expectNoAbsenceClaim(await opencodeAdapter.scan(opencodeInstallation(t), t.ctx, () => undefined));
    expect(inv.sessionsUnread).toBeTruthy();
    for (const i of inv.items.filter((x) => x.id.startsWith('snapshot:'))) expect(i.selectable, i.id).toBe(false);
    expect(inv.items.some((i) => i.id === 'session-diff:opencode')).toBe(false);
  }, 120_000);

  it('Claude Code: a transcript that cannot be read, or a project folder behind a link, leaves its session data unknown, not orphaned', async () => {
    t = makeTempEnv();
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const m = buildClaudeFixture({ configDir: home, projects: 2, sessionsPerProject: 2, seed: 9, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
    const s = m.sessions[0]!;
    // Per-session data of that session, then its transcript made unreadable (no JSON row).
    mkdirSync(join(home, 'file-history', s.id), { recursive: true });
    writeFileSync(join(home, 'file-history', s.id, 'v1'), 'x'.repeat(4096));
    writeFileSync(s.file, '\u0000\u0001 not a transcript\n');
    let inv = expectNoAbsenceClaim(await claudeAdapter.scan(inst('claude', home), t.ctx, () => undefined));
    const unknown = inv.items.find((i) => i.id === 'protected:claude:session-data-unknown')!;
    expect(unknown.paths).toContain(join(home, 'file-history', s.id));
    expect(unknown.selectable).toBe(false);
    for (const i of inv.items.filter((x) => x.selectable)) expect(i.paths, i.id).not.toContain(join(home, 'file-history', s.id));

    // A whole project folder the listing cannot enter: every other session's data is unknown too.
    const other = m.sessions.find((x) => x.bucket !== s.bucket)!;
    mkdirSync(join(home, 'file-history', other.id), { recursive: true });
    writeFileSync(join(home, 'file-history', other.id, 'v1'), 'y');
    const bucket = join(home, 'projects', other.bucket);
    const moved = join(t.root, 'elsewhere');
    mkdirSync(moved);
    for (const n of readdirSync(bucket)) writeFileSync(join(moved, n), '');
    rmSync(bucket, { recursive: true });
    symlinkSync(moved, bucket);
    inv = expectNoAbsenceClaim(await claudeAdapter.scan(inst('claude', home), t.ctx, () => undefined));
    expect(inv.items.find((i) => i.id === 'protected:claude:session-data-unknown')!.paths).toContain(join(home, 'file-history', other.id));
  }, 120_000);

  it('Codex: an unreadable state database calls no media orphaned and no thread gone', async () => {
    t = makeTempEnv();
    buildCodex(t);
    writeFileSync(join(t.env.CODEX_HOME!, 'state_5.sqlite'), Buffer.alloc(8192, 0x41));
    expectNoAbsenceClaim(await codexAdapter.scan(codexInstallation(t, null), t.ctx, () => undefined));
  }, 120_000);

  it('pi: a fork whose parent file is there but cannot be read is not a leftover of a deleted session', async () => {
    t = makeTempEnv();
    const dir = t.env.PI_CODING_AGENT_DIR!;
    const m = buildPiFixture({ agentDir: dir, projects: 1, sessionsPerProject: 6, seed: 11, forkRate: 1, cwdRoot: join(t.env.HOME!, 'src') });
    const fork = m.sessions.find((x) => x.kind === 'fork' && x.parentId)!;
    const parent = m.sessions.find((x) => x.id === fork.parentId)!;
    writeFileSync(parent.file, '\u0000 not a pi session\n');
    const inv = expectNoAbsenceClaim(await piAdapter.scan(inst('pi', dir), t.ctx, () => undefined));
    expect(inv.sessions.find((x) => x.id === fork.id)!.metadata.missingParentId).toBeUndefined();
  }, 120_000);
});
