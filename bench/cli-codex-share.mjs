// cli-codex-share: the CLI's commands when Codex is installed (the pinned
// codex binary on PATH, behind a wrapper that logs every start). `scan
// --json --agent pi` must not start Codex at all and is set against the same
// command with no Codex on PATH (ratio ≈ 1: Codex costs nothing when not
// asked about). `scan --json` and `doctor` ask about every agent: each is
// printed beside the same command without Codex, the difference being
// Codex's share. Small homes (a few pi sessions, an empty Codex home), so the
// figures are the commands' fixed costs. Median of 5, the order alternating.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, isolatedEnvFor, median, ROOT, timeNode } from './lib/util.mjs';

export const name = 'cli-codex-share';
/** `scan --json --agent pi` with Codex installed vs without: Codex must add nothing. */
export const target = 1.25;
const RUNS = 5;
const CODEX = join(ROOT, 'node_modules', '.bin', 'codex');

export async function run() {
  if (!existsSync(CODEX)) throw new Error('node_modules/.bin/codex is missing: run `npm ci` (the pinned Codex is a dev dependency).');
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-codex-share-'));
  try {
    const base = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
    for (const d of [base.CLEANERX_PROC_ROOT, base.HOME, base.CODEX_HOME]) mkdirSync(d, { recursive: true });
    const { buildPiFixture } = await import(join(ROOT, 'dist', 'adapters', 'pi', 'fixture.js'));
    buildPiFixture({ agentDir: base.PI_CODING_AGENT_DIR, projects: 2, sessionsPerProject: 5, forkRate: 0, seed: 3 });
    const bin = join(root, 'bin');
    mkdirSync(bin);
    const starts = join(root, 'codex-starts.log');
    writeFileSync(join(bin, 'codex'), `#!/bin/sh\necho "$*" >> '${starts}'\nexec '${CODEX}' "$@"\n`);
    chmodSync(join(bin, 'codex'), 0o755);
    const withCodex = { ...base, PATH: `${bin}:${base.PATH}` };
    const startsNow = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0);
    const time = async (args, env) => (await timeNode([CLI, ...args], { env, cwd: root })).ms;
    const cmds = [['scan', '--json', '--agent', 'pi'], ['scan', '--json'], ['doctor']];
    const res = cmds.map(() => ({ with: [], without: [], codexStarts: 0 }));
    for (let i = 0; i < RUNS; i++) {
      for (const [k, args] of cmds.entries()) {
        const before = startsNow();
        const sides = [async () => res[k].with.push(await time(args, withCodex)), async () => res[k].without.push(await time(args, base))];
        if (i % 2) sides.reverse();
        for (const s of sides) await s();
        res[k].codexStarts += startsNow() - before;
      }
    }
    const pi = res[0];
    if (pi.codexStarts) throw new Error(`scan --json --agent pi started Codex ${pi.codexStarts} time(s); it must not start it at all`);
    const lines = cmds.map((args, k) => {
      const w = median(res[k].with);
      const wo = median(res[k].without);
      return `${args.join(' ').padEnd(26)} with Codex ${Math.round(w)} ms, without ${Math.round(wo)} ms: Codex's share ${Math.round(w - wo)} ms; Codex started ${res[k].codexStarts / RUNS} time(s) per run`;
    });
    const o = median(pi.with);
    const r = median(pi.without);
    return { name, ours: o, reference: r, ratio: o / r, target, runs: { ours: pi.with, reference: pi.without }, extra: { lines } };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
