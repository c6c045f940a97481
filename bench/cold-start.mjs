// cold-start: spawn `cleanerx --demo` in a pseudo-terminal (100×30,
// xterm-256color) and time its first painted screen (tab bar and deck drawn),
// against a minimal blessed app timed until it shows "ready". Also reported:
// time until the demo's pi data is on screen (the Sessions tab shows its
// count and the deck names pi). Median of 5 alternated pairs. Beside the wall
// times, the CPU time each process had used when its paint arrived (/proc),
// which a loaded machine disturbs far less: both ratios are figures, each
// against the target. Then `cleanerx --version` against a Node start that
// prints a constant (bench/ref/print-version.mjs), 7 alternated pairs, wall
// and CPU (user + sys from the child's resource usage, lib/child-cpu.mjs).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeChild } from './lib/child-cpu.mjs';
import { timeFirstPaint } from './lib/pty-time.mjs';
import { BENCH, CLI, isolatedEnvFor, median } from './lib/util.mjs';

export const name = 'cold-start';
export const target = 1.5;
/** `--version` may cost what a Node start costs, and a little more. */
const VERSION_TARGET = 1.2;

const RUNS = 5;
const VERSION_RUNS = 7;
const TIMEOUT_MS = 10_000;

const oursPainted = (lines) => lines[0]?.includes('1 Overview') && lines.slice(-2).join('\n').includes('Agent');
const oursReady = (lines) => lines.some((l) => /Sessions \(\d+\)/.test(l)) && /\bpi\b/.test(lines.slice(-2).join('\n'));
const refReady = (lines) => lines.some((l) => l.includes('ready'));

export async function run({ log }) {
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-cold-'));
  try {
    const tmp = join(root, 'tmp');
    const proc = join(root, 'proc');
    mkdirSync(tmp, { recursive: true });
    mkdirSync(proc, { recursive: true });
    // --demo builds its throw-away home under TMPDIR; a killed app cannot remove it, so TMPDIR is ours.
    const env = await isolatedEnvFor(root, { TMPDIR: tmp, CLEANERX_PROC_ROOT: proc, COLORTERM: '' });
    mkdirSync(env.HOME, { recursive: true });
    const ours = [];
    const data = [];
    const reference = [];
    const oursCpu = [];
    const referenceCpu = [];
    let oursNote = null;
    let dataLate = 0;
    for (let i = 0; i < RUNS; i++) {
      if (oursNote === null) {
        const a = await timeFirstPaint({
          file: process.execPath,
          args: [CLI, '--demo'],
          env,
          cwd: root,
          ready: oursReady,
          milestones: { painted: oursPainted },
          timeoutMs: TIMEOUT_MS,
        });
        if (a.milestones.painted !== undefined) {
          // The first paint is the figure; the demo's data may take longer than the timeout on a loaded machine.
          ours.push(a.milestones.painted);
          oursCpu.push(a.milestonesCpu.painted);
          if (a.ms === null) dataLate++;
          else data.push(a.ms);
        } else if (a.ms === null) {
          oursNote = a.timedOut ? `no first paint within ${TIMEOUT_MS / 1000} s` : `exited (${a.exitCode}) before the first paint`;
          log(
            `  cleanerx --demo: ${oursNote}; last screen:\n${a.screen
              .filter((l) => l.trim())
              .map((l) => `    | ${l}`)
              .join('\n')}`,
          );
        } else {
          ours.push(a.ms);
          oursCpu.push(a.cpuMs);
          data.push(a.ms);
        }
        await removeWhenQuiet(tmp);
        mkdirSync(tmp, { recursive: true });
      }
      const b = await timeFirstPaint({
        file: process.execPath,
        args: [join(BENCH, 'ref', 'blessed-box.mjs')],
        env,
        cwd: root,
        ready: refReady,
        timeoutMs: TIMEOUT_MS,
      });
      if (b.ms === null) throw new Error(`the reference blessed app did not paint: ${b.screen.join('\n')}`);
      reference.push(b.ms);
      referenceCpu.push(b.cpuMs);
    }
    const o = oursNote === null ? median(ours) : null;
    const r = median(reference);
    const cpuKnown = (xs) => xs.filter((x) => x !== null && x !== undefined);
    const oc = cpuKnown(oursCpu).length ? median(cpuKnown(oursCpu)) : null;
    const rc = cpuKnown(referenceCpu).length ? median(cpuKnown(referenceCpu)) : null;
    const cpuLine =
      oc !== null && rc !== null
        ? `CPU time at the first paint: ours ${oc.toFixed(0)} ms, reference ${rc.toFixed(0)} ms (${(oc / rc).toFixed(2)}×; runs ours [${oursCpu.join(', ')}], reference [${referenceCpu.join(', ')}])`
        : 'CPU time at the first paint: n/a (no /proc)';
    const version = await versionPairs(env, root);
    const figures = [
      { label: 'cold start → first paint vs a minimal blessed app, wall', value: o === null ? null : o / r, unit: '×', op: '≤', target },
      { label: 'cold start → first paint vs a minimal blessed app, CPU', value: oc !== null && rc ? oc / rc : null, unit: '×', op: '≤', target },
      { label: '--version vs a Node start printing a constant, wall', value: version.wall, unit: '×', op: '≤', target: VERSION_TARGET },
      { label: '--version vs a Node start printing a constant, CPU', value: version.cpu, unit: '×', op: '≤', target: VERSION_TARGET },
    ];
    return {
      name,
      ours: o,
      reference: r,
      ratio: o === null ? null : o / r,
      target,
      figures,
      runs: { ours, data, reference, version: version.runs },
      extra: oursNote
        ? { note: oursNote }
        : {
            dataOnScreenMs: data.length ? median(data) : undefined,
            cpuMs: { ours: oc, reference: rc },
            lines: [
              cpuLine,
              version.line,
              ...(dataLate ? [`the demo's pi data was not on screen within ${TIMEOUT_MS / 1000} s in ${dataLate} of ${ours.length} runs`] : []),
            ],
          },
    };
  } finally {
    await removeWhenQuiet(root);
  }
}

/** `cleanerx --version` and the reference, alternated (which goes first alternates too), medians of wall and CPU. */
async function versionPairs(env, cwd) {
  const runs = { ours: [], reference: [] };
  const ref = join(BENCH, 'ref', 'print-version.mjs');
  for (let i = 0; i < VERSION_RUNS; i++) {
    const pair = [
      ['ours', [CLI, '--version']],
      ['reference', [ref]],
    ];
    if (i % 2) pair.reverse();
    for (const [who, args] of pair) runs[who].push(await timeChild(process.execPath, args, { ...env, PWD: cwd }));
  }
  const med = (who, k) => median(runs[who].map((x) => x[k]));
  const [ow, rw, oc, rc] = [med('ours', 'wallMs'), med('reference', 'wallMs'), med('ours', 'cpuMs'), med('reference', 'cpuMs')];
  const line = `--version: ours ${ow.toFixed(0)} ms wall / ${oc.toFixed(0)} ms CPU, reference ${rw.toFixed(0)} ms / ${rc.toFixed(0)} ms (${(ow / rw).toFixed(2)}× wall, ${(oc / rc).toFixed(2)}× CPU; ${VERSION_RUNS} pairs)`;
  return { wall: ow / rw, cpu: oc / rc, runs, line };
}

/**
 * The killed demo may leave its background OpenCode store build running for a
 * few seconds (a child process writing into the demo home): retry until the
 * tree stays removed, so the next measurement starts on a quiet machine.
 */
async function removeWhenQuiet(dir) {
  for (let i = 0; i < 60; i++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (e) {
      if (e.code !== 'ENOTEMPTY' && e.code !== 'EBUSY') throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
