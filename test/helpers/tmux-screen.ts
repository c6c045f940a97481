// Drives the real `cleanerx` binary inside a real tmux (its own server on a
// private socket, no user config) with the terminal type users of tmux and
// screen have, and reads the screen with `tmux capture-pane`, as they see it.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ScreenDriver } from './pty-screen.js';
import { parseTmuxCapture, type Grab } from './screen-invariants.js';

export const TMUX = '/usr/bin/tmux';

/** Stops at once, in one line, when tmux is missing (npm test installs it where it can). */
export function requireTmux(): void {
  if (!existsSync(TMUX)) throw new Error(`${TMUX} is missing: install Debian's tmux (apt-get install tmux) to run the PTY journeys under tmux.`);
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class TmuxScreen extends ScreenDriver {
  readonly where: string;
  private readonly dir: string;
  private readonly socket: string;
  private readonly exitFile: string;
  private readonly stoppedFile: string;
  private readonly resumeFile: string;
  private disposed = false;

  constructor(args: string[], env: Record<string, string>, cols = 100, rows = 30, termName = 'tmux-256color') {
    super(cols, rows);
    requireTmux();
    this.where = `tmux TERM=${termName} ${cols}×${rows}`;
    this.dir = mkdtempSync(join(tmpdir(), 'cleanerx-tmux-'));
    this.socket = join(this.dir, 'sock');
    this.exitFile = join(this.dir, 'exit');
    this.stoppedFile = join(this.dir, 'stopped');
    this.resumeFile = join(this.dir, 'resume');
    const conf = join(this.dir, 'tmux.conf');
    writeFileSync(conf, [`set -g default-terminal ${termName}`, 'set -g default-shell /bin/sh', 'set -g status off', 'set -g escape-time 0', 'set -g remain-on-exit off', ''].join('\n'));
    const vars = { ...env, TERM: termName, LANG: 'C.UTF-8' };
    const run = ['env -i', ...Object.entries(vars).map(([k, v]) => shQuote(`${k}=${v}`)), shQuote(process.execPath), shQuote(CLI), ...args.map(shQuote)].join(' ');
    // A shell with job control, as users have: Ctrl-Z stops the app (148), `fg` brings it back when the test says so.
    const script = join(this.dir, 'run.sh');
    writeFileSync(
      script,
      [
        'set -m',
        run,
        'rc=$?',
        'while [ $rc -eq 148 ]; do',
        `  : > ${shQuote(this.stoppedFile)}`,
        `  while [ ! -e ${shQuote(this.resumeFile)} ]; do sleep 0.05; done`,
        `  rm -f ${shQuote(this.resumeFile)} ${shQuote(this.stoppedFile)}`,
        '  fg; rc=$?',
        'done',
        `echo $rc > ${shQuote(this.exitFile)}`,
        '',
      ].join('\n'),
    );
    const command = `/bin/bash ${shQuote(script)}`;
    this.tmux(['-f', conf, 'new-session', '-d', '-s', 'main', '-x', String(cols), '-y', String(rows), command]);
    this.tmux(['set-option', '-g', 'window-size', 'manual']);
  }

  private tmux(args: string[]): string {
    return execFileSync(TMUX, ['-S', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
  }

  private pollExit(): void {
    if (this.exitCode === null && existsSync(this.exitFile)) {
      const t = readFileSync(this.exitFile, 'utf8').trim();
      if (t) this.exitCode = Number(t);
    }
  }

  protected async flush(): Promise<void> {
    this.pollExit();
  }

  lines(): string[] {
    this.pollExit();
    if (this.exitCode !== null) return Array(this.rows).fill('');
    try {
      const text = this.tmux(['capture-pane', '-p', '-t', 'main']);
      const rows = text.replace(/\n$/, '').split('\n');
      while (rows.length < this.rows) rows.push('');
      return rows.slice(0, this.rows);
    } catch {
      this.pollExit();
      return Array(this.rows).fill('');
    }
  }

  async grab(): Promise<Grab> {
    const text = this.tmux(['capture-pane', '-p', '-e', '-N', '-t', 'main']);
    const joined = this.tmux(['capture-pane', '-p', '-J', '-t', 'main']);
    return parseTmuxCapture(text, joined, this.cols, this.rows);
  }

  protected write(bytes: string): void {
    // -H: the bytes as they are, in one write to the pane (keys typed at once).
    const hex = [...Buffer.from(bytes, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
    if (hex.length) this.tmux(['send-keys', '-t', 'main', '-H', ...hex]);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.resizedAt = Date.now();
    this.tmux(['resize-window', '-t', 'main', '-x', String(cols), '-y', String(rows)]);
  }

  /** True while the app is stopped (after a Ctrl-Z). */
  stopped(): boolean {
    return existsSync(this.stoppedFile);
  }

  /** What `fg` at the user's shell does: continue the stopped app in the foreground. */
  resume(): void {
    writeFileSync(this.resumeFile, '');
  }

  async waitExit(timeout = 8000): Promise<number> {
    const end = Date.now() + timeout;
    for (;;) {
      this.pollExit();
      if (this.exitCode !== null) return this.exitCode;
      if (Date.now() > end) {
        this.dispose();
        throw new Error(`cleanerx did not exit within ${timeout} ms (${this.where})`);
      }
      await sleep(20);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    try {
      this.tmux(['kill-server']);
    } catch {
      // Already gone with its last pane.
    }
    // The pane's shell may still be writing its exit file as the server goes.
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}
