// The fleet recipe in docs/fleet.md, run exactly as written: its marked
// shell blocks are cut out of the document and run by /bin/sh with a
// stand-in `ssh` first on PATH. The stand-in runs the remote command
// locally, in a clean environment with that host's temp home (unknown hosts
// fail as ssh does, exit 255). Every host runs the real dist/cli.js.
//
// Ansible itself is not installed here: its collect step is run on files in
// the documented `--tree` layout (the command module's result, `.stdout` a
// string) made from the hosts' real scan output.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../../src/demo/demo-home.js';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

const DOC = fileURLToPath(new URL('../../docs/fleet.md', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** A private copy of dist/ (set in beforeAll): other builds rewriting dist/ mid-test cannot break a host's run. */
let CLI = '';

/** The shell block right after `<!-- fleet-recipe:NAME -->`. */
function recipe(name: string): string {
  const m = new RegExp(`<!-- fleet-recipe:${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readFileSync(DOC, 'utf8'));
  if (!m) throw new Error(`docs/fleet.md has no block fleet-recipe:${name}`);
  return m[1]!;
}

const STAND_IN_SSH = `#!/bin/sh
# ssh [-n] [-T] [-o opt]... host command... — runs command locally as "host".
n=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=1; shift ;;
    -T | -q) shift ;;
    -o) shift 2 ;;
    -o*) shift ;;
    -*) echo "stand-in ssh: unsupported option $1" >&2; exit 255 ;;
    *) break ;;
  esac
done
host=$1; shift
dir="$FLEET_HOSTS/$host"
if [ ! -f "$dir/env.sh" ]; then echo "ssh: Could not resolve hostname $host: Name or service not known" >&2; exit 255; fi
[ -n "$n" ] && exec < /dev/null
# Like sshd: the words joined by spaces, run by the remote user's shell, in a clean environment.
exec env -i /bin/sh -c '. "$1/env.sh"; cd "$HOME" && eval "$2"' sh "$dir" "$*"
`;

/**
 * Copies dist/ whole: retried while a build (another test run's global
 * setup) is writing it — the stamp, written last, changed during the copy,
 * or a file is newer than it.
 */
function copyDist(to: string): void {
  const stamp = join(REPO, 'dist', '.build-stamp');
  const mark = (): string => (existsSync(stamp) ? `${statSync(stamp).mtimeMs}:${readFileSync(stamp, 'utf8')}` : 'none');
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = mark();
    rmSync(to, { recursive: true, force: true });
    cpSync(join(REPO, 'dist'), to, { recursive: true, preserveTimestamps: true });
    const newest = Math.max(
      ...readdirSync(to, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
    );
    if (before !== 'none' && mark() === before && newest <= statSync(stamp).mtimeMs + 1) return;
    spawnSync('sleep', ['1']);
  }
  throw new Error('dist/ kept changing while it was copied (a build in progress?); run the test again.');
}

let t: TempEnv;
let work: string;
let hosts: string;
const manifests: Record<string, PiFixtureManifest> = {};

function addHost(name: string, sessions: number): void {
  const root = join(hosts, name);
  const env = isolatedEnv(root);
  mkdirSync(env.HOME!, { recursive: true });
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'cleanerx'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  chmodSync(join(bin, 'cleanerx'), 0o755);
  const proc = join(root, 'proc');
  mkdirSync(proc, { recursive: true });
  const all = { ...env, PATH: `${bin}:/usr/bin:/bin`, LANG: 'C.UTF-8', CLEANERX_PROC_ROOT: proc };
  writeFileSync(
    join(root, 'env.sh'),
    Object.entries(all)
      .map(([k, v]) => `export ${k}='${v}'\n`)
      .join(''),
  );
  if (sessions) {
    manifests[name] = buildPiFixture({
      agentDir: env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: sessions,
      seed: sessions,
      forkRate: 0,
      now: Date.now(),
      cwdRoot: join(env.HOME!, 'src'),
    });
  }
}

function sh(script: string, extra: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', script], {
    cwd: work,
    env: { ...t.env, PATH: `${join(t.root, 'ssh-bin')}:/usr/bin:/bin`, FLEET_HOSTS: hosts, ...extra },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!existsSync(join(REPO, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing; run npm run build first.');
  t = makeTempEnv();
  const app = join(t.root, 'app');
  copyDist(join(app, 'dist'));
  copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(app, 'node_modules'));
  CLI = join(app, 'dist', 'cli.js');
  work = join(t.root, 'work');
  hosts = join(t.root, 'hosts');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(t.root, 'ssh-bin'), { recursive: true });
  writeFileSync(join(t.root, 'ssh-bin', 'ssh'), STAND_IN_SSH);
  chmodSync(join(t.root, 'ssh-bin', 'ssh'), 0o755);
  addHost('alpha', 6);
  addHost('beta', 3);
  addHost('gamma', 0);
  // delta has no env: it does not resolve.
  writeFileSync(join(work, 'hosts.txt'), '# the fleet\nalpha\n\nbeta\ngamma\ndelta\n');
});

afterAll(() => t?.cleanup());

interface Line {
  host: string;
  report: { version: number; agents: { agent: string; state: string; totals: { bytes: number }; sessions: unknown[] }[] };
}
const readLines = (): Line[] =>
  readFileSync(join(work, 'fleet', 'scans.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('the fleet recipe through a stand-in ssh', () => {
  it('scans every reachable host, names the one that fails, and the summary adds up', { timeout: 180_000 }, () => {
    const scan = sh(recipe('scan'));
    expect(scan.status, scan.stderr).toBe(0);
    expect(scan.stderr).toMatch(/^ssh: Could not resolve hostname delta/m);
    expect(scan.stderr).toMatch(/^delta: cleanerx scan failed \(exit 255\)$/m);
    const lines = readLines();
    expect(
      lines.map((l) => l.host),
      scan.stderr,
    ).toEqual(['alpha', 'beta', 'gamma']);
    for (const l of lines) expect(l.report.version).toBe(1);
    const pi = (h: string) => lines.find((l) => l.host === h)!.report.agents.find((a) => a.agent === 'pi')!;
    expect(pi('alpha').sessions.length).toBe(manifests.alpha!.sessions.length);
    expect(pi('beta').sessions.length).toBe(manifests.beta!.sessions.length);
    expect(pi('gamma').state).toBe('notFound');

    const sum = sh(recipe('summary'));
    expect(sum.status).toBe(0);
    const [tsv, json] = [sum.stdout.slice(0, sum.stdout.indexOf('[')), sum.stdout.slice(sum.stdout.indexOf('['))];
    expect(tsv.trim().split('\n')).toEqual([
      `alpha\tpi\t${pi('alpha').totals.bytes}\t${manifests.alpha!.sessions.length}\t0`,
      `beta\tpi\t${pi('beta').totals.bytes}\t${manifests.beta!.sessions.length}\t0`,
    ]);
    expect(JSON.parse(json)).toEqual([
      {
        agent: 'pi',
        hosts: ['alpha', 'beta'],
        bytes: pi('alpha').totals.bytes + pi('beta').totals.bytes,
        sessions: manifests.alpha!.sessions.length + manifests.beta!.sessions.length,
      },
    ]);
    // The host's own state recorded this scan (growth); nothing of the agent's data changed is checked below.
    expect(existsSync(join(hosts, 'alpha', 'home', '.local', 'state', 'cleanerx', 'scan-history.json'))).toBe(true);
  });

  it('the Ansible collect step gives the same scans.jsonl from --tree files', () => {
    const before = readLines();
    const tree = join(work, 'fleet', 'ansible');
    mkdirSync(tree, { recursive: true });
    for (const h of ['alpha', 'beta', 'gamma']) {
      const stdout = readFileSync(join(work, 'fleet', `${h}.scan.json`), 'utf8').replace(/\n$/, '');
      writeFileSync(
        join(tree, h),
        JSON.stringify({
          changed: true,
          cmd: ['cleanerx', 'scan', '--json'],
          rc: 0,
          stdout,
          stderr: '',
          stdout_lines: [stdout],
          start: '',
          end: '',
          delta: '',
          msg: '',
        }),
      );
    }
    writeFileSync(join(tree, 'delta'), JSON.stringify({ changed: false, unreachable: true, msg: 'Failed to connect to the host via ssh' }));
    const r = sh(recipe('ansible-collect'));
    expect(r.status).toBe(0);
    expect(readLines()).toEqual(before);
  });

  it('plans on every host, then runs exactly one reviewed plan; the other hosts are untouched', { timeout: 180_000 }, () => {
    const plan = sh(recipe('plan'), { AGENT: 'pi', RULES: '--older-than 30d' });
    expect(plan.status).toBe(0);
    const alpha = JSON.parse(readFileSync(join(work, 'fleet', 'alpha.plan.json'), 'utf8')) as {
      agent: string;
      items: { id: string }[];
      totals: { items: number; bytes: number };
    };
    expect(alpha.agent).toBe('pi');
    const old = manifests.alpha!.sessions.filter((s) => Date.now() - s.mtime > 30 * 86_400_000);
    expect(old.length).toBeGreaterThan(0);
    expect(alpha.totals.items).toBeGreaterThan(0);
    expect(plan.stdout).toMatch(new RegExp(`^fleet/alpha\\.plan\\.json\\tpi\\t${alpha.totals.items}\\t${alpha.totals.bytes}\\t\\d+$`, 'm'));

    const betaBefore = hashTree(join(hosts, 'beta', 'home', '.pi'));
    const alphaBefore = hashTree(join(hosts, 'alpha', 'home', '.pi'));
    const clean = sh(recipe('clean'), { HOST_TO_CLEAN: 'alpha' });
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    expect(treeDiff(betaBefore, hashTree(join(hosts, 'beta', 'home', '.pi')))).toEqual([]);
    const changed = treeDiff(alphaBefore, hashTree(join(hosts, 'alpha', 'home', '.pi')));
    expect(changed.length).toBeGreaterThan(0);
    // A rescan over ssh counts exactly the planned sessions fewer.
    const rescan = sh(`ssh -n alpha cleanerx scan --agent pi --json | jq '.agents[0].sessions | length'`);
    expect(Number(rescan.stdout)).toBe(manifests.alpha!.sessions.length - alpha.items.length);
    // The same plan again is refused, changing nothing.
    const again = sh(recipe('clean'), { HOST_TO_CLEAN: 'alpha' });
    expect(again.status).not.toBe(0);
  });
});
