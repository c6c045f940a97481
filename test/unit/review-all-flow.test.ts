// The grouped review's run (#28.1), through the app's own CleanupFlow with
// an engine that answers like the real one: one execute per agent, in the
// review's order; the first agent that does not complete stops the rest
// (reported as not started, never executed); a blocked agent is skipped and
// said so; one result names every agent; each agent's fresh scan rebases
// that agent's marks only.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { CleanupFlow } from '../../src/app/cleanup-flow.js';
import type { AppState } from '../../src/app/context.js';
import { PerAgent } from '../../src/app/per-agent.js';
import type { EngineApi } from '../../src/engine/api/api.js';
import type { AgentKind, CleanupPlan, ExecuteResult, ScanSummary } from '../../src/engine/core/model.js';
import type { Modal } from '../../src/modals/modal.js';
import type { AppContext } from '../../src/screens/screen.js';
import { dispatch } from '../../src/widgets/bindings.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function headless(): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

const AGENTS: AgentKind[] = ['codex', 'claude', 'pi'];
const summary = (agent: AgentKind, ids: string[], snap = `snap-${agent}`): ScanSummary =>
  ({ agent, snapshotId: snap, items: [], selection: ids.map((id) => ({ id, projectId: 'p', bytes: 5 })) }) as unknown as ScanSummary;
const planOf = (agent: AgentKind, blockers: string[] = []): CleanupPlan =>
  ({
    id: `plan-${agent}`,
    snapshotId: `snap-${agent}`,
    agent,
    action: 'delete',
    items: [{ id: `session:${agent}`, label: `S ${agent}`, category: 'session', bytes: 5, paths: [], recoverable: true, depth: 0 }],
    operations: [],
    estimatedBytes: 5,
    estimatedBackupBytes: 5,
    backupEligible: false,
    routeNotes: [],
    blockers,
  }) as unknown as CleanupPlan;

interface RunResult {
  executed: string[];
  title: string;
  text: string;
  per: PerAgent;
  requested?: string[][];
  modal?: Modal | null;
  second?: { executed: string[]; title: string; text: string; requested: string[][] };
}

/** Runs the review of everything marked with `results` per agent; what was executed, and the result dialog's text. */
async function run(
  results: Partial<Record<AgentKind, ExecuteResult['status']>>,
  blocked: AgentKind[] = [],
  stale: AgentKind[] = [],
  again?: Partial<Record<AgentKind, ExecuteResult['status']>>,
): Promise<RunResult> {
  const executed: string[] = [];
  const requested: string[][] = [];
  // The engine's newest scan per agent: a completed run's fresh scan replaces the first.
  const latest = new Map<AgentKind, string>();
  const per = new PerAgent();
  for (const a of AGENTS) {
    per.adopt(summary(a, [`session:${a}`, `session:${a}-kept`]));
    per.marksOf(a).addAll([`session:${a}`, `session:${a}-kept`]);
  }
  let dialog: { title: string; lines: string[] } | null = null;
  let done: () => void = () => undefined;
  let finished = new Promise<void>((r) => (done = r));
  const engine = {
    planGroup: async (reqs: { snapshotId: string; ids: string[] }[]) =>
      requested.push(...reqs.map((r) => [r.snapshotId, ...r.ids])) &&
      reqs.map((r) => planOf(r.snapshotId.split('-')[1] as AgentKind, blocked.includes(r.snapshotId.split('-')[1] as AgentKind) ? ['busy'] : [])),
    execute: async (planId: string): Promise<ExecuteResult> => {
      const agent = planId.slice(5) as AgentKind;
      executed.push(agent);
      const status = results[agent] ?? 'complete';
      if (status === 'complete') latest.set(agent, `snap-${agent}-2`);
      return {
        operationId: `op-${agent}`,
        status,
        message: status === 'complete' ? 'ok' : `${agent} refused`,
        removedItems: status === 'complete' ? 1 : 0,
        removedBytes: 5,
        // The fresh scan no longer has the removed session.
        summary: status === 'complete' ? summary(agent, [`session:${agent}-kept`], `snap-${agent}-2`) : undefined,
      };
    },
    latestSnapshot: async (agent: AgentKind) => (stale.includes(agent) ? `snap-${agent}-newer` : (latest.get(agent) ?? `snap-${agent}`)),
    backupsList: async () => [],
    recoveryList: async () => [],
    stopExecution: async () => undefined,
  } as unknown as EngineApi;
  const st = {
    flags: { readOnly: false },
    perAgent: per,
    selector: AGENTS.map((agent) => ({ agent })),
    agent: 'pi',
    summary: per.summaryOf('pi'),
    engine,
    screen: headless(),
    theme: makeTheme({}),
    modal: null as Modal | null,
    summaryChanged: () => undefined,
    nameOf: (a: AgentKind) => ({ codex: 'Codex', claude: 'Claude Code', opencode: 'OpenCode', pi: 'pi' })[a],
    requestRender: () => undefined,
  } as unknown as AppState & { modal: Modal | null };
  const ctx = {
    hold: <T>(_title: string, p: Promise<T>, then: (v: T) => void) =>
      void p.then(then, (e: Error) => {
        dialog = { title: 'hold', lines: [e.message] };
        done();
      }),
    busy: <T>(_o: unknown, go: (u: () => void) => Promise<T>) => go(() => undefined),
    openDialog: (title: string, lines: string[]) => {
      dialog = { title, lines };
      done();
    },
  } as unknown as AppContext;
  const flow = new CleanupFlow(st, ctx, {} as never);
  flow.reviewAllMarked();
  await new Promise((r) => setImmediate(r));
  if (stale.length) {
    await finished;
    const d = dialog as unknown as { title: string; lines: string[] };
    return { executed, title: d.title, text: d.lines.join('\n'), per, modal: st.modal } as RunResult;
  }
  const confirm = async (): Promise<string> => {
    const modal = st.modal!;
    expect(modal, 'the grouped review is open').toBeTruthy();
    const keys = modal.keyContext();
    for (const ch of 'delete') dispatch([keys], ch, { name: ch, full: ch } as never);
    dispatch([keys], '\r', { name: 'enter', full: 'enter' } as never);
    await finished;
    return dialog!.lines.join('\n').replace(/\{[^}]*\}/g, '');
  };
  const text = await confirm();
  const first: RunResult = { executed: [...executed], title: dialog!.title, text, per, requested: [...requested] };
  if (!again) return first;
  // The result's advice: x (the review of everything marked) again, on what the stopped run left.
  Object.assign(results, again);
  executed.length = 0;
  requested.length = 0;
  st.modal = null;
  finished = new Promise<void>((r) => (done = r));
  flow.reviewAllMarked();
  await new Promise((r) => setImmediate(r));
  const text2 = await confirm();
  return { ...first, second: { executed, title: dialog!.title, text: text2, requested } };
}

it('runs one agent after another and reports every agent in one result', async () => {
  const r = await run({});
  expect(r.executed).toEqual(['codex', 'claude', 'pi']);
  expect(r.title).toBe('Cleanup complete');
  for (const name of ['Codex', 'Claude Code', 'pi']) expect(r.text).toContain(`${name}: Removed 1 item`);
  // Each agent's own fresh scan rebased its own marks: the removed session's mark is gone, the other stays.
  for (const a of AGENTS) expect(r.per.marksOf(a).list()).toEqual([`session:${a}-kept`]);
});

it('stops at the first agent that does not complete: the ones before are reported done, the rest not started (never executed)', async () => {
  const r = await run({ claude: 'failed' });
  expect(r.executed).toEqual(['codex', 'claude']);
  expect(r.title).toBe('Cleanup stopped');
  expect(r.text).toContain('Codex: Removed 1 item');
  expect(r.text).toContain('Claude Code: failed — claude refused');
  expect(r.text).toMatch(/pi: not started/);
  // pi's marks are untouched: both still marked.
  expect(r.per.marksOf('pi').count).toBe(2);
  expect(r.text).toContain('What was not removed stays marked: x reviews it again');
});

it("after a stopped run, x reviews the rest: the failed and the not-started agents' marks whole, the done agent's only what is left", async () => {
  const r = await run({ claude: 'failed' }, [], [], { claude: 'complete' });
  const second = r.second!;
  // Codex had its removed session rebased away; Claude (failed) and pi (not started) keep both marks.
  expect(second.requested).toEqual([
    ['snap-codex-2', 'session:codex-kept'],
    ['snap-claude', 'session:claude', 'session:claude-kept'],
    ['snap-pi', 'session:pi', 'session:pi-kept'],
  ]);
  expect(second.executed).toEqual(['codex', 'claude', 'pi']);
  expect(second.title).toBe('Cleanup complete');
  expect(second.text).not.toContain('x reviews it again');
});

it('a blocked agent is skipped and said so; the others run', async () => {
  const r = await run({}, ['claude']);
  expect(r.executed).toEqual(['codex', 'pi']);
  expect(r.text).toContain('Claude Code: blocked, skipped — busy');
  expect(r.per.marksOf('claude').count).toBe(2);
});

it('an agent scanned again behind the kept view: the review names it and nothing is planned or run', async () => {
  const r = await run({}, [], ['claude']);
  expect(r.modal).toBeNull();
  expect(r.executed).toEqual([]);
  expect(r.text).toBe('Claude Code was scanned again since its marks were shown; switch to it to see the new scan (its marks are kept), then review again.');
});
