// Peer test: cleanerx's Claude Code archive mark against the pinned Claude
// Agent SDK (0.3.333) itself. cleanerx writes the mark (it does not call the
// SDK at runtime, see src/adapters/claude/archive-route.ts); here the SDK's own
// listSessions must report archived:true after cleanerx archives and
// archived:false after it unarchives, and cleanerx must read the marks the
// SDK's own archiveSession/unarchiveSession write. The SDK runs in a child
// process with HOME and CLAUDE_CONFIG_DIR inside a temp dir.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

/** Runs `action` ('list' | 'archive' | 'unarchive') through the SDK, then its listSessions(): id → archived. */
function sdk(action: string, id = ''): Map<string, boolean> {
  const code = `
    import { archiveSession, unarchiveSession, listSessions } from '@anthropic-ai/claude-agent-sdk';
    if (!process.env.CLAUDE_CONFIG_DIR) process.exit(3);
    const [action, id] = process.argv.slice(1);
    if (action === 'archive') await archiveSession(id);
    if (action === 'unarchive') await unarchiveSession(id);
    process.stdout.write(JSON.stringify((await listSessions()).map((s) => [s.sessionId, s.archived === true])));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, action, id], {
    cwd: process.cwd(),
    env: t.env,
    encoding: 'utf8',
    timeout: budget(60_000),
  });
  if (r.status !== 0) throw new Error(`SDK failed (${r.status ?? r.signal}): ${r.stderr}`);
  return new Map(JSON.parse(r.stdout) as [string, boolean][]);
}

describe('Claude archive mark, against the Agent SDK', () => {
  it(
    'the SDK reads what cleanerx writes, and cleanerx reads what the SDK writes',
    async () => {
      t = makeTempEnv('cleanerx-claude-archive-');
      const m = buildClaudeFixture({
        configDir: t.env.CLAUDE_CONFIG_DIR!,
        projects: 2,
        sessionsPerProject: 3,
        bodyBytes: 400,
        cwdRoot: join(t.env.HOME!, 'code'),
      });
      const listed = sdk('list');
      const [a, b] = m.sessions.filter((s) => !s.archived && listed.get(s.id) === false);
      expect(a && b).toBeTruthy();
      const engine = new Engine(ADAPTERS, t.ctx);
      const state = async (): Promise<Map<string, string>> => {
        const snap = engine.snapshot((await engine.scan('claude')).snapshotId);
        return new Map(m.sessions.map((s) => [s.id, snap.session(`session:${s.id}`)?.s.state ?? 'absent']));
      };

      // cleanerx archives a → the SDK lists it archived; nothing else changed.
      const before = hashTree(t.env.CLAUDE_CONFIG_DIR!);
      let summary = await engine.scan('claude');
      let r = await engine.execute((await engine.plan(summary.snapshotId, [`session:${a!.id}`], 'archive')).id);
      expect(r.status, r.message).toBe('complete');
      const diff = treeDiff(before, hashTree(t.env.CLAUDE_CONFIG_DIR!));
      expect(
        diff.every((l) => l.includes(`${a!.id}/archived.json`) || l === `added projects/${a!.bucket}/${a!.id}`),
        diff.join('\n'),
      ).toBe(true);
      let after = sdk('list');
      expect(after.get(a!.id)).toBe(true);
      for (const [id, v] of listed) if (id !== a!.id) expect(after.get(id), id).toBe(v);

      // cleanerx unarchives a → the SDK lists it current again.
      summary = r.summary!;
      r = await engine.execute((await engine.plan(summary.snapshotId, [`session:${a!.id}`], 'unarchive')).id);
      expect(r.status, r.message).toBe('complete');
      after = sdk('list');
      expect(after.get(a!.id)).toBe(false);

      // The SDK archives b → cleanerx reads it archived; the SDK unarchives b → current.
      sdk('archive', b!.id);
      expect((await state()).get(b!.id)).toBe('archived');
      sdk('unarchive', b!.id);
      expect((await state()).get(b!.id)).toBe('current');
    },
    budget(120_000),
  );
});
