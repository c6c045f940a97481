// The real binary: `cleanerx plan` (text and the versioned --json file),
// its usage errors, and `cleanerx clean --plan FILE --yes`, which runs
// exactly the reviewed plan or refuses, changing nothing, once an item in
// it changed. Byte-for-byte proof over the whole agent dir.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let m: PiFixtureManifest;
const agentDir = (): string => t.env.PI_CODING_AGENT_DIR!;

beforeEach(() => {
  t = makeTempEnv();
  // Ages relative to the real clock: the binary scans with Date.now().
  m = buildPiFixture({ agentDir: agentDir(), projects: 2, sessionsPerProject: 6, forkRate: 0, now: Date.now(), cwdRoot: join(t.env.HOME!, 'src') });
});
afterEach(() => t.cleanup());

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { env: t.env, encoding: 'utf8', input: '' });
}

interface PlanJson {
  version: number;
  agent: string;
  snapshot: { scannedAt: string; home: string; sessions: number };
  rules: Record<string, unknown>;
  items: { id: string; title: string; bytes: number; reason: string; revision: string; removedWith?: string }[];
  skipped: unknown[];
  notes: string[];
  totals: { items: number; bytes: number; skipped: number };
}

function makePlan(rules: string[]): { file: string; plan: PlanJson } {
  const r = run(['plan', '--agent', 'pi', ...rules, '--json']);
  expect(r.stderr).toBe('');
  expect(r.status, r.stderr).toBe(0);
  const file = join(t.root, 'plan.json');
  writeFileSync(file, r.stdout);
  return { file, plan: JSON.parse(r.stdout) as PlanJson };
}

/** Everything under the temp root but the scan history every scan appends to (cleanerx's own growth record). */
const wholeTree = (): Map<string, string> => hashTree(t.root, [join(t.env.CLEANERX_STATE_DIR!, 'scan-history.json')]);

const fileOf = (itemId: string): string => m.sessions.find((s) => `session:${s.id}` === itemId)!.file;

describe('cleanerx plan', () => {
  it('--json prints the documented, versioned plan: items with reason and revision, skipped, totals', () => {
    const { plan } = makePlan(['--older-than', '30d']);
    expect(Object.keys(plan).sort()).toEqual(['agent', 'items', 'notes', 'rules', 'skipped', 'snapshot', 'totals', 'version']);
    expect(plan.version).toBe(1);
    expect(plan.agent).toBe('pi');
    expect(plan.rules).toEqual({ olderThanDays: 30 });
    expect(plan.snapshot.home).toBe(agentDir());
    expect(plan.snapshot.sessions).toBe(m.sessions.length);
    const old = m.sessions.filter((s) => s.mtime < Date.now() - 30 * 86_400_000);
    expect(plan.items.length).toBeGreaterThan(0);
    expect(plan.items.length).toBeLessThanOrEqual(old.length);
    for (const i of plan.items) {
      expect(Object.keys(i).sort()).toEqual(['bytes', 'id', 'reason', 'revision', 'title']);
      expect(i.reason).toMatch(/^tree last used \d+ d ago$/);
      expect(i.revision).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(plan.totals).toEqual({ items: plan.items.length, bytes: plan.items.reduce((a, i) => a + i.bytes, 0), skipped: 0 });
  });

  it('prints the plan as text and removes nothing', () => {
    const before = hashTree(agentDir());
    const r = run(['plan', '--agent', 'pi', '--keep-latest', '2']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pi home: /);
    expect(r.stdout).toMatch(/Plan: 8 items, /);
    expect(r.stdout).toMatch(/not among the 2 latest of its project/);
    expect(r.stdout).toMatch(
      /Nothing was removed\. To run exactly this plan: cleanerx plan --agent pi --keep-latest 2 --json > plan\.json, then cleanerx clean --plan plan\.json --yes/,
    );
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });

  it.each([
    [['--older-than', '3 fortnights'], /--older-than needs a duration such as 30d/],
    [['--larger-than', 'big'], /--larger-than needs a size such as 500M/],
    [['--keep-latest', '-1'], /--keep-latest needs a whole number/],
    [['--state', 'gone'], /state/],
    [['--frobnicate'], /frobnicate/],
    [[], /plan needs at least one rule/],
  ])('usage error %j: exit 2, one line', (args, msg) => {
    const r = run(['plan', '--agent', 'pi', ...args]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(msg);
    expect(r.stdout).toBe('');
  });

  it('an unknown project is one line, exit 2', () => {
    const r = run(['plan', '--agent', 'pi', '--project', '/no/such/project']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^cleanerx: No project "\/no\/such\/project" in this scan; .*\n$/);
  });
});

describe('cleanerx clean --plan FILE', () => {
  it('refuses, changing nothing, when one item changed after the plan was made (exit 1)', () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    expect(plan.items.length).toBeGreaterThan(1);
    const victim = fileOf(plan.items[1]!.id);
    appendFileSync(victim, '{"type":"message","message":{"role":"user","content":"still in use"}}\n');
    const before = wholeTree();
    const r = run(['clean', '--plan', file, '--yes']);
    expect(r.stderr).toMatch(/^cleanerx: The plan is out of date: .* changed since the plan was made\. Nothing was removed; make a new plan\.\n$/);
    expect(r.stderr).toContain(plan.items[1]!.id);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });

  it('checks the plan whole: another home, edited sizes, titles or totals are refused naming the field, nothing changed (#26)', () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    const cases: [string, (p: PlanJson) => void, RegExp][] = [
      ['home', (p) => (p.snapshot.home = join(t.root, 'someone-else', '.pi', 'agent')), /its snapshot\.home names .*someone-else/],
      [
        'bytes ×1000',
        (p) => {
          for (const i of p.items) i.bytes *= 1000;
          p.totals.bytes *= 1000;
        },
        /its bytes of session:\S+ say \d+, but the scan measures \d+/,
      ],
      ['totals', (p) => (p.totals.bytes += 1), /its totals\.bytes says \d+, but its items add up to \d+/],
      ['title', (p) => (p.items[0]!.title = 'not what the scan shows'), /its title of session:\S+ is "not what the scan shows"/],
    ];
    for (const [what, edit, message] of cases) {
      const edited = JSON.parse(JSON.stringify(plan)) as PlanJson;
      edit(edited);
      writeFileSync(file, JSON.stringify(edited));
      const before = wholeTree();
      const r = run(['clean', '--plan', file, '--yes']);
      expect(r.status, `${what}: ${r.stderr}`).toBe(1);
      expect(r.stderr, what).toMatch(message);
      expect(r.stderr, what).toMatch(/Nothing was removed; make a new plan\.\n$/);
      expect(treeDiff(before, wholeTree()), what).toEqual([]);
    }
    // The plan as written still runs.
    writeFileSync(file, JSON.stringify(plan));
    expect(run(['clean', '--plan', file, '--yes']).status).toBe(0);
  });

  it('refuses when a planned session is gone', () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    const gone = fileOf(plan.items[0]!.id);
    spawnSync('rm', [gone]);
    const before = wholeTree();
    const r = run(['clean', '--plan', file, '--yes']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/The plan is out of date: .*Nothing was removed; make a new plan\./);
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });

  it('runs an unchanged plan: exactly its items go, everything else is byte-identical', () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    const planned = new Set(plan.items.map((i) => relative(agentDir(), fileOf(i.id))));
    const before = hashTree(agentDir());
    const r = run(['clean', '--plan', file, '--yes']);
    expect(r.stderr).toBe('');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/complete: /);
    const diff = treeDiff(before, hashTree(agentDir()));
    expect(diff.sort()).toEqual([...planned].map((p) => `removed ${p}`).sort());
    for (const s of m.sessions) expect(existsSync(s.file)).toBe(!planned.has(relative(agentDir(), s.file)));
  });

  it('--backup: a verified backup of exactly the plan first, then the cleanup; backups restore brings the files back', { timeout: 120_000 }, () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    const before = hashTree(agentDir());
    const r = spawnSync(process.execPath, [CLI, 'clean', '--plan', file, '--yes', '--backup'], { env: t.env, encoding: 'utf8', input: 'passphrase-123\n' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/complete: /);
    for (const i of plan.items) expect(existsSync(fileOf(i.id))).toBe(false);
    const list = run(['backups', 'list']);
    const id = /^(\S+)\s+pi\s/m.exec(list.stdout)![1]!;
    expect(list.stdout).toMatch(new RegExp(`${plan.items.length} items`));
    const back = spawnSync(process.execPath, [CLI, 'backups', 'restore', id, '--yes'], { env: t.env, encoding: 'utf8', input: 'passphrase-123\n' });
    expect(back.status, back.stderr).toBe(0);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });

  it('without --yes shows the plan and removes nothing (exit 2)', () => {
    const { file } = makePlan(['--older-than', '30d']);
    const before = wholeTree();
    const r = run(['clean', '--plan', file]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/add --yes/);
    expect(treeDiff(before, wholeTree())).toEqual([]);
  });

  it('treats the plan file as hostile: tampered, a symlink, a FIFO, another agent — each refused in one line, nothing changed', () => {
    const { file, plan } = makePlan(['--older-than', '30d']);
    const before = hashTree(agentDir());
    const cases: [string, RegExp][] = [];
    const tampered = join(t.root, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...plan, items: plan.items.map((i, k) => (k === 0 ? { ...i, paths: ['/etc/passwd'] } : i)) }));
    cases.push([tampered, /not valid: item 1 has an unknown field "paths"/]);
    const badRev = join(t.root, 'rev.json');
    writeFileSync(badRev, JSON.stringify({ ...plan, items: plan.items.map((i, k) => (k === 0 ? { ...i, revision: 'x'.repeat(32) } : i)) }));
    cases.push([badRev, /item 1 has an invalid revision/]);
    const link = join(t.root, 'link.json');
    symlinkSync(file, link);
    cases.push([link, /symbolic link/]);
    mkdirSync(join(t.root, 'fifo'));
    const fifo = join(t.root, 'fifo', 'plan.json');
    spawnSync('mkfifo', [fifo]);
    cases.push([fifo, /FIFO/]);
    const garbage = join(t.root, 'garbage.json');
    writeFileSync(garbage, '\x1b]0;pwned\x07{not json');
    cases.push([garbage, /is not JSON/]);
    for (const [path, msg] of cases) {
      const r = run(['clean', '--plan', path, '--yes']);
      expect(r.status, path).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
      // eslint-disable-next-line no-control-regex
      expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    }
    const other = run(['clean', '--plan', file, '--agent', 'claude', '--yes']);
    expect(other.status, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/The plan is for pi/);
    expect(run(['clean', '--plan', file, '--id', 'session:x', '--yes']).status).toBe(2);
    expect(treeDiff(before, hashTree(agentDir()))).toEqual([]);
  });
});
