// Time from spawning a program in a pseudo-terminal until its screen shows
// what we wait for, then kill it. The output is fed into a headless xterm so
// the check looks at the rendered screen (blessed paints with cursor moves
// and partial rewrites, so the raw byte stream is not reliable text).

import { readFileSync } from 'node:fs';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';

const { Terminal } = xterm;

/** The screen as lines of text. */
export function screenLines(term) {
  const buf = term.buffer.active;
  const out = [];
  for (let i = 0; i < term.rows; i++) out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
  return out;
}

/**
 * CPU time (user + system, every thread) process `pid` has used so far, in ms, from /proc (null where there is none).
 * Wall time on a loaded machine mostly measures the others; this is what the program itself spent.
 */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ is 100 on Linux).
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * @param {{file: string, args: string[], env: Record<string,string>, cwd: string,
 *          ready: (lines: string[]) => boolean, timeoutMs: number, cols?: number, rows?: number}} o
 * @returns {Promise<{ms: number|null, cpuMs: number|null, timedOut: boolean, exitCode: number|null, screen: string[], milestones: Record<string, number>, milestonesCpu: Record<string, number|null>}>}
 */
export function timeFirstPaint(o) {
  const cols = o.cols ?? 100;
  const rows = o.rows ?? 30;
  return new Promise((resolvePromise) => {
    const screen = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    const started = process.hrtime.bigint();
    const proc = pty.spawn(o.file, o.args, {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: o.cwd,
      env: { ...o.env, TERM: 'xterm-256color' },
    });
    let done = false;
    let exitCode = null;
    // Optional earlier milestones ({name: predicate}): the first time each holds, in ms.
    const seen = {};
    const seenCpu = {};
    const finish = (ms, timedOut, cpuMs = null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        proc.kill('SIGKILL');
      } catch {
        /* already gone */
      }
      const lines = screenLines(screen);
      screen.dispose();
      resolvePromise({ ms, cpuMs, timedOut, exitCode, screen: lines, milestones: seen, milestonesCpu: seenCpu });
    };
    const timer = setTimeout(() => finish(null, true), o.timeoutMs);
    proc.onData((d) => {
      // The arrival time of the chunk that completes the paint is what counts,
      // not the time the headless terminal takes to parse it.
      const at = process.hrtime.bigint();
      const cpu = cpuMsOf(proc.pid);
      screen.write(d, () => {
        if (done) return;
        const lines = screenLines(screen);
        for (const [k, pred] of Object.entries(o.milestones ?? {}))
          if (seen[k] === undefined && pred(lines)) {
            seen[k] = Number(at - started) / 1e6;
            seenCpu[k] = cpu;
          }
        if (o.ready(lines)) finish(Number(at - started) / 1e6, false, cpu);
      });
    });
    proc.onExit((e) => {
      exitCode = e.exitCode;
      // Let trailing output land in the terminal before calling it a failure.
      setTimeout(() => finish(null, false), 100);
    });
  });
}
