// The real binary on the demo home (every agent): `plan --agent all` with
// item rules (`--items`, `--suggested`), and `clean --plan` of the plan set it
// writes — one transaction per agent in turn, every agent's plan checked
// whole before the first runs, and nothing outside the planned items'
// paths changed.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDemoHome, type DemoHome } from '../../src/demo/demo-home.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let demo: DemoHome;

async function freshHome(): Promise<void> {
  t = makeTempEnv();
  const tmp = join(t.root, 'tmp');
  mkdirSync(tmp);
  demo = await createDemoHome(Date.now(), undefined, tmp);
}

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', CLEANERX_PROC_ROOT: t.procRoot, ...demo.env },
    encoding: 'utf8',
    input: '',
    timeout: 120_000,
  });
}

interface PlanJson {
  version: number;
  agent: string;
  snapshot: { home: string };
  rules: Record<string, unknown>;
  items: { id: string; title: string; bytes: number; reason: string; revision: string }[];
  totals: { items: number; bytes: number; skipped: number };
}
interface PlanSet {
  version: number;
  plans: PlanJson[];
}

function makeSet(args: string[]): { file: string; set: PlanSet } {
  const r = run(['plan', '--agent', 'all', ...args, '--json']);
  expect(r.status, r.stderr).toBe(0);
  const file = join(t.root, 'plan.json');
  writeFileSync(file, r.stdout);
  return { file, set: JSON.parse(r.stdout) as PlanSet };
}

/** Every item's paths, from the scan the plan names them in. */
function itemPaths(): Map<string, string[]> {
  const r = run(['scan', '--json']);
  expect(r.status, r.stderr).toBe(0);
  const out = new Map<string, string[]>();
  for (const a of JSON.parse(r.stdout).agents as { agent: string; items: { id: string; paths: string[] }[] }[])
    for (const i of a.items) out.set(`${a.agent} ${i.id}`, i.paths);
  return out;
}

/** The demo home without cleanerx's own state (journals, scan history) and locks. */
const wholeTree = (): Map<string, string> => hashTree(demo.root, [demo.env.XDG_STATE_HOME!, join(demo.root, 'run')]);

describe('cleanerx plan --agent all', () => {
  // Planning never changes the home (one test holds that), so these share one demo home: building it runs the real agents.
  beforeAll(freshHome);
  afterAll(() => t.cleanup());

  it('--suggested: one plan file per agent with items, exactly the single-agent file, items only of the suggested kinds', () => {
    const { set } = makeSet(['--suggested']);
    expect(Object.keys(set).sort()).toEqual(['plans', 'version']);
    expect(set.version).toBe(1);
    const agents = set.plans.map((p) => p.agent);
    // The demo's Claude temp output and caches are there for every agent but none of its sessions.
    expect(agents).toEqual(expect.arrayContaining(['claude', 'codex', 'pi']));
    for (const p of set.plans) {
      expect(Object.keys(p).sort()).toEqual(['agent', 'items', 'notes', 'rules', 'skipped', 'snapshot', 'totals', 'version']);
      expect(p.rules).toEqual({ items: ['leaked', 'cache', 'temp', 'gc', 'compaction', 'old-logs'] });
      for (const i of p.items) {
        expect(i.id.startsWith('session:')).toBe(false);
        expect(i.reason).toMatch(/^item kind (leaked|cache|temp|gc|compaction|old-logs)$/);
      }
      expect(p.totals.bytes).toBe(p.items.reduce((a, i) => a + i.bytes, 0));
      // The same plan as `plan --agent <that agent>` writes, field for field (the scan time aside).
      const single = run(['plan', '--agent', p.agent, '--suggested', '--json']);
      expect(single.status, single.stderr).toBe(0);
      const one = JSON.parse(single.stdout) as PlanJson & { snapshot: { scannedAt?: string } };
      const bare = (x: PlanJson): unknown => ({ ...x, snapshot: { ...x.snapshot, scannedAt: null } });
      expect(bare(one)).toEqual(bare(p));
    }
    expect(set.plans.find((p) => p.agent === 'claude')!.items.map((i) => i.id)).toContain('claude-temp');
  });

  it('prints every agent in text, one total and the one way to run it; nothing changes', () => {
    const before = wholeTree();
    const r = run(['plan', '--agent', 'all', '--items', 'temp,cache']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Codex home: /);
    expect(r.stdout).toMatch(/^Claude Code home: /m);
    expect(r.stdout).toMatch(/^All agents: \d+ items, .* on disk$/m);
    expect(r.stdout).toMatch(/cleanerx plan --agent all --items temp,cache --json > plan\.json, then cleanerx clean --plan plan\.json --yes/);
    // One hint for the set, none per agent.
    expect(r.stdout.match(/To run exactly this plan/g)).toHaveLength(1);
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });

  it('a session rule and an item rule together select both', () => {
    const r = run(['plan', '--agent', 'pi', '--older-than', '30d', '--items', 'cache', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout) as PlanJson;
    expect(p.items.some((i) => i.id.startsWith('session:'))).toBe(true);
    expect(p.items.some((i) => i.id === 'cache:pi-models-store')).toBe(true);
  });

  it.each([
    [['--agent', 'all', '--items', 'bogus'], /--items takes item kinds/],
    [['--agent', 'pi', '--items', 'temp,temp'], /--items takes item kinds/],
    [['--agent', 'all', '--older-than', '30d', '--archive'], /--agent all does not archive/],
    [['--agent', 'codex', '--suggested', '--archive'], /Items are never archived/],
  ])('usage error %j: exit 2, one line', (args, msg) => {
    const r = run(['plan', ...args]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(msg);
    expect(r.stdout).toBe('');
  });
});

describe('cleanerx clean --plan <plan set>', () => {
  beforeEach(freshHome);
  afterEach(() => t.cleanup());

  it('runs one cleanup per agent in turn: exactly the planned items go, everything else byte-identical', { timeout: 240_000 }, () => {
    const { file, set } = makeSet(['--suggested']);
    const paths = itemPaths();
    const planned = set.plans.flatMap((p) => p.items.flatMap((i) => paths.get(`${p.agent} ${i.id}`) ?? []));
    expect(planned.length).toBeGreaterThan(0);
    const before = wholeTree();
    const r = run(['clean', '--plan', file, '--yes', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { formatVersion: number; results: { agent: string; status: string; removedItems: number }[] };
    expect(out.results.map((x) => x.agent)).toEqual(set.plans.map((p) => p.agent));
    for (const [i, x] of out.results.entries()) {
      expect(x.status).toBe('complete');
      expect(x.removedItems).toBe(set.plans[i]!.items.length);
    }
    // One journaled operation per agent: one verdict line each.
    expect(r.stderr.match(/^complete: /gm)).toHaveLength(set.plans.length);
    const rel = planned.map((p) => relative(demo.root, p));
    const inside = (entry: string): boolean => rel.some((p) => entry === p || entry.startsWith(`${p}/`));
    const outside = treeDiff(before, wholeTree()).filter((d) => !inside(d.replace(/^(removed|changed|added) /, '')));
    expect(outside).toEqual([]);
    // Nothing of them is offered again.
    const again = makeSet(['--suggested']).set;
    for (const p of again.plans) for (const i of p.items) expect(set.plans.find((q) => q.agent === p.agent)?.items.map((x) => x.id)).not.toContain(i.id);
  });

  it('checks every agent whole before the first runs: an edited later plan refuses, nothing of any agent changed (exit 1)', () => {
    const { file, set } = makeSet(['--suggested']);
    expect(set.plans.length).toBeGreaterThan(1);
    const cases: [string, (s: PlanSet) => void, RegExp][] = [
      ['home', (s) => (s.plans[s.plans.length - 1]!.snapshot.home = join(t.root, 'someone-else')), /its snapshot\.home names .*someone-else/],
      ['totals', (s) => (s.plans[s.plans.length - 1]!.totals.bytes += 1), /its totals\.bytes says \d+, but its items add up to \d+/],
      ['title', (s) => (s.plans[s.plans.length - 1]!.items[0]!.title = 'not what the scan shows'), /its title of \S+ is "not what the scan shows"/],
    ];
    for (const [what, edit, message] of cases) {
      const edited = JSON.parse(JSON.stringify(set)) as PlanSet;
      edit(edited);
      writeFileSync(file, JSON.stringify(edited));
      const before = wholeTree();
      const r = run(['clean', '--plan', file, '--yes']);
      expect(r.status, `${what}: ${r.stderr}`).toBe(1);
      expect(r.stderr, what).toMatch(message);
      expect(r.stdout, what).not.toMatch(/complete: /);
      expect(treeDiff(before, wholeTree()), what).toEqual([]);
    }
  });

  it('refuses a plan set that repeats an agent or holds no plan (exit 2), and --agent picks one agent of it', () => {
    const { file, set } = makeSet(['--suggested']);
    writeFileSync(file, JSON.stringify({ version: 1, plans: [set.plans[0], set.plans[0]] }));
    let r = run(['clean', '--plan', file, '--yes']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/repeats the agent/);
    writeFileSync(file, JSON.stringify({ version: 1, plans: [] }));
    r = run(['clean', '--plan', file, '--yes']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not a list of one plan per agent/);
    writeFileSync(file, JSON.stringify(set));
    const before = wholeTree();
    r = run(['clean', '--plan', file, '--agent', set.plans[0]!.agent]);
    // Without --yes: only that agent's plan is shown, nothing removed.
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout.match(/ home: /g)).toHaveLength(1);
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });
});
