// Archive plans through the real Engine on fixture stores: an archive plan is
// a plan like any other (journal → preflight → mutate → verify by rescan),
// frees 0 B, needs no backup, changes only the agent's mark byte for byte,
// and unarchive undoes it. pi has no official route: its plan is blocked.
// Plan items carry what they cost (issue #16 part 6).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { listJournals } from '../../src/engine/cleanup/journal.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

function claudeHome() {
  const t = makeTempEnv('cleanerx-archive-');
  envs.push(t);
  const m = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 3, bodyBytes: 400, cwdRoot: join(t.env.HOME!, 'code') });
  return { t, m, engine: new Engine(ADAPTERS, t.ctx) };
}

describe('archive plans', () => {
  it('archives and unarchives a Claude session through its mark, changing nothing else', async () => {
    const { t, m, engine } = claudeHome();
    const s = m.sessions.find((x) => !x.archived && !x.hiddenByClaude)!;
    const id = `session:${s.id}`;
    let summary = await engine.scan('claude');
    const plan = await engine.plan(summary.snapshotId, [id], 'archive');
    expect(plan.action).toBe('archive');
    expect(plan.estimatedBytes).toBe(0);
    expect(plan.backupEligible).toBe(false);
    expect(plan.backupWhyNot).toMatch(/no backup is needed/);
    expect(plan.irreversible).toBe(false);
    expect(plan.operations.map((o) => o.kind)).toEqual(['archive']);
    expect(plan.items.map((i) => i.cost?.recoverable)).toEqual(['reversible']);
    expect([...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)]).toEqual([]);

    const before = hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]);
    const r = await engine.execute(plan.id);
    expect(r.status, r.message).toBe('complete');
    expect(r.removedBytes).toBe(0);
    const after = hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]);
    const mark = join(t.env.CLAUDE_CONFIG_DIR!, 'projects', s.bucket, s.id, 'archived.json');
    const rel = mark.slice(t.env.HOME!.length + 1);
    const diff = treeDiff(before, after).filter((l) => !l.endsWith(rel) && !l.endsWith(rel.slice(0, -'/archived.json'.length)));
    expect(diff).toEqual([]);
    expect(JSON.parse(readFileSync(mark, 'utf8'))).toMatchObject({ archived: true, by: 'cleanerx' });
    summary = r.summary!;
    const page = await engine.page({
      snapshotId: summary.snapshotId,
      scope: { view: 'flat' },
      filter: { state: 'archived' },
      sort: 'updated',
      offset: 0,
      limit: 100,
    });
    expect(page.rows.map((x) => x.id)).toContain(id);
    expect((await listJournals(t.env.CLEANERX_STATE_DIR!)).filter((e) => e.kind === 'journal' && e.journal.status === 'complete')).toHaveLength(1);

    const un = await engine.plan(summary.snapshotId, [id], 'unarchive');
    expect(un.operations.map((o) => o.kind)).toEqual(['unarchive']);
    const before2 = hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]);
    const r2 = await engine.execute(un.id);
    expect(r2.status, r2.message).toBe('complete');
    expect(treeDiff(before2, hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]))).toEqual([`changed ${rel}`]);
    expect(JSON.parse(readFileSync(mark, 'utf8')).archived).toBe(false);
    const snap = engine.snapshot(r2.summary!.snapshotId);
    expect(snap.session(id)?.s.state).toBe('current');
  });

  it('leaves sessions already in the wanted state out, and refuses non-session items', async () => {
    const { m, engine } = claudeHome();
    const summary = await engine.scan('claude');
    const cur = m.sessions.find((x) => !x.archived && !x.hiddenByClaude)!;
    const arch = m.sessions.find((x) => x.archived);
    if (arch) {
      const p = await engine.plan(summary.snapshotId, [`session:${cur.id}`, `session:${arch.id}`], 'archive');
      expect(p.items.map((i) => i.id)).toEqual([`session:${cur.id}`]);
      expect(p.routeNotes.join(' ')).toMatch(/already archived/);
    }
    await expect(engine.plan(summary.snapshotId, [`session:${cur.id}`], 'unarchive')).rejects.toThrow(/No marked session is archived/);
    const item = summary.items.find((i) => i.category !== 'protected')!;
    await expect(engine.plan(summary.snapshotId, [item.id], 'archive')).rejects.toThrow(/Only sessions can be archived/);
  });

  it('blocks an archive plan for pi, which has no official archive route', async () => {
    const t = makeTempEnv('cleanerx-archive-pi-');
    envs.push(t);
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 1,
      sessionsPerProject: 2,
      forkRate: 0,
      bodyBytes: 200,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const engine = new Engine(ADAPTERS, t.ctx);
    const summary = await engine.scan('pi');
    const plan = await engine.plan(summary.snapshotId, [`session:${m.sessions[0]!.id}`], 'archive');
    expect(plan.blockers.join(' ')).toMatch(/pi has no official archive route/);
    await expect(engine.execute(plan.id)).rejects.toThrow(/blockers/);
  });

  it('puts the cost on every item of a delete plan', async () => {
    const { m, engine } = claudeHome();
    const summary = await engine.scan('claude');
    const s = m.sessions.find((x) => !x.hiddenByClaude)!;
    const cache = summary.items.find((i) => i.category === 'cache' && i.selectable);
    const ids = [`session:${s.id}`, ...(cache ? [cache.id] : [])];
    const plan = await engine.plan(summary.snapshotId, ids);
    const session = plan.items.find((i) => i.id === `session:${s.id}`)!;
    expect(session.cost).toMatchObject({ recoverable: 'backup', regenerable: false });
    expect(session.cost?.agentLoses).toMatch(/history of this session and resuming it/);
    if (cache) expect(plan.items.find((i) => i.id === cache.id)!.cost).toMatchObject({ regenerable: true, agentLoses: '' });
    // The detail pane says the same of the session, and offers archive.
    const d = await engine.detail(summary.snapshotId, `session:${s.id}`);
    const cost = d.sections.find((x) => x.heading === 'If removed')!;
    expect(Object.fromEntries(cost.fields.map((f) => [f.label, f.value]))).toMatchObject({
      Recoverable: 'yes, from a backup cleanerx takes first',
      Regenerable: 'no',
      'Agent stopped': session.cost?.needsAgentStopped ? 'needed' : 'not needed',
      'Agent loses': 'the history of this session and resuming it',
      'Archive (A)': 'reversible, frees 0 B, nothing removed',
    });
  });
});
