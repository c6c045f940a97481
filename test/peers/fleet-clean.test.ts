// `cleanerx fleet plan` then `fleet clean` against a real sshd: three hosts
// plan on their own stores; after planning, one host's store changes. The
// clean refuses on that host only, changing nothing of its data (tree hash),
// while the other two clean exactly their plans and nothing else.

import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/constants.js';
import { type SshLab, startSshLab } from '../helpers/sshd.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let lab: SshLab;
const HOSTS = ['alpha', 'beta', 'gamma'];
const manifests: Record<string, PiFixtureManifest> = {};

function run(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: t.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

const store = (host: string): string => lab.hosts.get(host)!.env.PI_CODING_AGENT_DIR!;

/** The host's own scan, run on it directly: its pi sessions (id → paths). */
function piSessions(host: string): Map<string, string[]> {
  const h = lab.hosts.get(host)!;
  const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'pi', '--json'], { env: h.env, encoding: 'utf8', cwd: h.env.HOME });
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(r.stdout) as { agents: { sessions: { id: string; paths: string[] }[] }[] };
  return new Map(report.agents[0]!.sessions.map((s) => [s.id, s.paths]));
}

beforeAll(async () => {
  t = makeTempEnv('cleanerx-fleet-clean-');
  lab = await startSshLab(
    join(t.root, 'lab'),
    HOSTS.map((name) => ({ name })),
  );
  HOSTS.forEach((name, i) => {
    const h = lab.hosts.get(name)!;
    manifests[name] = buildPiFixture({
      agentDir: h.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 5 + i,
      seed: 11 + i,
      forkRate: 0,
      now: Date.now(),
      cwdRoot: join(h.env.HOME!, 'src'),
    });
  });
}, budget(120_000));

afterAll(async () => {
  await lab?.stop();
  t?.cleanup();
});

interface PlanJson {
  items: { id: string }[];
  totals: { items: number; bytes: number };
}

describe('fleet plan and fleet clean over a real sshd', () => {
  it('a host whose store changed after planning refuses, changing nothing there; the others clean exactly their plans', {
    timeout: budget(300_000),
  }, async () => {
    const plans = join(t.root, 'plans');
    const planned = await run(['fleet', 'plan', ...HOSTS, lab.downHost, '--agent', 'pi', '--older-than', '30d', '--out', plans, '--ssh-config', lab.config]);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(1);
    expect(planned.stdout).toMatch(/^down\s+unreachable: /m);
    for (const h of HOSTS) expect(planned.stdout).toMatch(new RegExp(`^${h}\\s+pi: \\d+ items?, .* → ${plans}/${h}\\.plan\\.json$`, 'm'));
    expect(readdirSync(plans).sort()).toEqual(HOSTS.map((h) => `${h}.plan.json`).sort());
    const plan = Object.fromEntries(HOSTS.map((h) => [h, JSON.parse(readFileSync(join(plans, `${h}.plan.json`), 'utf8')) as PlanJson]));
    for (const h of HOSTS) expect(plan[h]!.items.length, h).toBeGreaterThan(0);

    // Without --yes: the plans are listed, no host is contacted, exit 2.
    const before = Object.fromEntries(HOSTS.map((h) => [h, hashTree(store(h))]));
    const dry = await run(['fleet', 'clean', '--plans', plans, '--ssh-config', lab.config]);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toMatch(/^alpha\s+would run: pi, /m);
    expect(dry.stderr).toMatch(/Nothing was sent: add --yes to run these plans on 3 hosts\./);
    for (const h of HOSTS) expect(treeDiff(before[h]!, hashTree(store(h)))).toEqual([]);

    // beta's store changes after planning: one planned session gains a line.
    const sessionsBefore = Object.fromEntries(HOSTS.map((h) => [h, piSessions(h)]));
    const betaPlanned = plan.beta!.items[0]!.id.replace(/^session:/, '');
    const betaFile = sessionsBefore.beta!.get(betaPlanned)![0]!;
    appendFileSync(
      betaFile,
      `${JSON.stringify({ type: 'message', id: 'late', parentId: null, timestamp: new Date().toISOString(), message: { role: 'user', content: 'late' } })}\n`,
    );
    const betaChanged = hashTree(store('beta'));

    const r = await run(['fleet', 'clean', '--plans', plans, '--yes', '--ssh-config', lab.config]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^beta\s+refused: cleanerx: .+/m);
    expect(r.stdout).toMatch(/^alpha\s+cleaned: pi, \d+ items?, .* \(operation .+\)$/m);
    expect(r.stdout).toMatch(/^gamma\s+cleaned: pi, /m);
    expect(r.stdout).toMatch(/^2 of 3 hosts cleaned\.$/m);

    // beta: nothing of its data changed.
    expect(treeDiff(betaChanged, hashTree(store('beta')))).toEqual([]);
    expect(piSessions('beta').size).toBe(sessionsBefore.beta!.size);
    // alpha and gamma: exactly the planned sessions' files are gone, every other byte is as it was.
    for (const h of ['alpha', 'gamma']) {
      const removed = plan[h]!.items.flatMap((i) => sessionsBefore[h]!.get(i.id.replace(/^session:/, '')) ?? []);
      expect(removed.length).toBe(plan[h]!.items.length);
      const diff = treeDiff(before[h]!, hashTree(store(h)));
      const expected = removed.map((p) => `removed ${relative(store(h), p)}`);
      expect(diff.filter((d) => !expected.includes(d))).toEqual([]);
      expect(diff.sort()).toEqual(expected.sort());
      expect(piSessions(h).size).toBe(sessionsBefore[h]!.size - plan[h]!.items.length);
      // The plan's temp copy on the host is gone.
      expect(readdirSync(join(lab.hosts.get(h)!.root, 'tmp')).filter((n) => n.startsWith('cleanerx-plan.'))).toEqual([]);
    }
    expect(existsSync(betaFile)).toBe(true);
  });

  it('a plans directory with a file that is no plan is refused before any host is contacted (exit 2)', { timeout: budget(60_000) }, async () => {
    const dir = join(t.root, 'bad-plans');
    const r0 = await run(['fleet', 'plan', 'alpha', '--agent', 'pi', '--older-than', '1d', '--out', dir, '--ssh-config', lab.config]);
    expect(r0.code, r0.stderr).toBe(0);
    appendFileSync(join(dir, 'beta.plan.json'), '{"version":1,"agent":"pi"}');
    const alpha = hashTree(store('alpha'));
    const r = await run(['fleet', 'clean', '--plans', dir, '--yes', '--ssh-config', lab.config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cleanerx: beta\.plan\.json is not a plan file/);
    expect(treeDiff(alpha, hashTree(store('alpha')))).toEqual([]);
  });
});
