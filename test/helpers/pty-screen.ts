// Drives the real `cleanerx` binary in a pseudo-terminal and reads the screen
// through a headless xterm, as a user would see it. Every successful wait is
// a step of the journey: the screen invariants (screen-invariants.ts) are
// checked after it, and the screen must equal a full redraw (Ctrl-L) of the
// same state.

import { spawn, type IPty } from '@lydell/node-pty';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import xterm from '@xterm/headless';
import { fileURLToPath } from 'node:url';
import { describe as describeProblems, screenProblems, type Grab } from './screen-invariants.js';

const { Terminal } = xterm;
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pageUp: '\x1b[5~',
  pageDown: '\x1b[6~',
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  space: ' ',
  ctrlC: '\x03',
  ctrlL: '\x0c',
  ctrlZ: '\x1a',
  backspace: '\x7f',
};

/** The app's placeholders for what is still loading. */
const PENDING = /Loading details…|Scanning…|Waiting for scan data|Preparing the review|Reading the backup key/;

const RESIZE_SETTLE = 600;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A terminal running cleanerx: what every journey drives, whichever terminal it is. */
export abstract class ScreenDriver {
  exitCode: number | null = null;
  protected resizedAt = 0;
  /** Checked after every successful wait; a test that means to see a broken screen turns it off. */
  checkInvariants = true;
  steps = 0;

  constructor(
    public cols: number,
    public rows: number,
  ) {}

  /** Every cell with its attributes, once the terminal has taken all output so far. */
  abstract grab(): Promise<Grab>;
  /** The text of each row as it is now. */
  abstract lines(): string[];
  /** Lets the terminal take the output written so far. */
  protected abstract flush(): Promise<void>;
  protected abstract write(bytes: string): void;
  abstract resize(cols: number, rows: number): void;
  abstract waitExit(timeout?: number): Promise<number>;
  abstract dispose(): void;
  /** The terminal this runs in, for messages ("tmux TERM=screen-256color"). */
  abstract readonly where: string;

  text(): string {
    return this.lines().join('\n');
  }

  press(...keys: string[]): void {
    for (const k of keys) this.write(k);
  }

  type(s: string): void {
    this.write(s);
  }

  async waitFor(pattern: RegExp | string, timeout = 8000): Promise<string> {
    const end = Date.now() + timeout;
    for (;;) {
      await this.flush();
      const t = this.text();
      if (typeof pattern === 'string' ? t.includes(pattern) : pattern.test(t)) {
        await this.step(`after waiting for ${pattern}`);
        return this.text();
      }
      if (this.exitCode !== null) throw new Error(`cleanerx exited (${this.exitCode}) while waiting for ${pattern}\n${t}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} (${this.where}); screen:\n${t}`);
      await sleep(20);
    }
  }

  async waitForNot(pattern: RegExp | string, timeout = 8000): Promise<void> {
    const end = Date.now() + timeout;
    for (;;) {
      await this.flush();
      const t = this.text();
      if (!(typeof pattern === 'string' ? t.includes(pattern) : pattern.test(t))) {
        await this.step(`after waiting for ${pattern} to go`);
        return;
      }
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} to go (${this.where}); screen:\n${t}`);
      await sleep(20);
    }
  }

  async waitForLine(pattern: RegExp, timeout = 8000): Promise<string> {
    await this.waitFor(new RegExp(pattern.source, 'm'), timeout);
    return this.lines().find((l) => pattern.test(l))!;
  }

  /** Waits until two grabs 60 ms apart agree (at most `max` ms); returns the last grab and whether it settled. */
  async settle(quiet = 60, max = 1500): Promise<{ grab: Grab; settled: boolean }> {
    const end = Date.now() + max;
    let last = await this.grab();
    for (;;) {
      await sleep(quiet);
      const next = await this.grab();
      if (next.signature === last.signature) return { grab: next, settled: true };
      last = next;
      if (Date.now() > end) return { grab: last, settled: false };
    }
  }

  /** The invariants, then the redraw check: Ctrl-L must change nothing a settled screen shows. */
  async step(where: string): Promise<void> {
    this.steps++;
    if (!this.checkInvariants || this.exitCode !== null) return;
    // blessed redraws 300 ms after a resize: until then the terminal shows the old frame, reflowed.
    const since = Date.now() - this.resizedAt;
    if (since < RESIZE_SETTLE) await sleep(RESIZE_SETTLE - since);
    // While something is still on its way (a scan, a detail) the screen is checked as it is, without waiting
    // (the journey may be watching that very moment); the redraw comparison needs a state that holds still.
    const now = await this.grab();
    if (PENDING.test(now.lines.join('\n'))) {
      const problems = screenProblems(now);
      if (problems.length) throw new Error(describeProblems(problems, now, `${where} (${this.where})`));
      return;
    }
    // A longer quiet spell first: a page still on its way is a change of state, not a stale cell.
    const base = await this.settle(150);
    const problems = screenProblems(base.grab);
    if (problems.length) throw new Error(describeProblems(problems, base.grab, `${where} (${this.where})`));
    if (!base.settled || PENDING.test(base.grab.lines.join('\n'))) return;
    this.write(KEYS.ctrlL);
    const after = await this.settle();
    if (!after.settled || after.grab.signature === base.grab.signature) return;
    // The state may have moved on by itself (a clock, a scan): a second redraw tells a stale cell from a change.
    this.write(KEYS.ctrlL);
    const again = await this.settle();
    if (again.settled && again.grab.signature === after.grab.signature) {
      const a = base.grab.signature.split('\n');
      const b = after.grab.signature.split('\n');
      const diff = a
        .map((row, i) => (row === b[i] ? null : `  line ${i + 1}: drawn  |${base.grab.lines[i]?.trimEnd()}|\n          redrawn|${after.grab.lines[i]?.trimEnd()}|`))
        .filter(Boolean);
      throw new Error(
        `the screen differs from a full redraw of the same state ${where} (${this.where}): stale cells\n${diff.join('\n') || '  (attributes differ)'}`,
      );
    }
  }
}

export class PtyScreen extends ScreenDriver {
  readonly term: InstanceType<typeof Terminal>;
  readonly pty: IPty;
  raw = '';
  titles: string[] = [];
  readonly where: string;
  private exited: Promise<number>;

  constructor(args: string[], env: Record<string, string>, cols = 100, rows = 30, termName = 'xterm-256color') {
    super(cols, rows);
    this.where = `xterm headless TERM=${termName} ${cols}×${rows}`;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    // Emoji are two columns wide, as in tmux and every current terminal (xterm.js defaults to Unicode 6).
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.onTitleChange((t) => this.titles.push(t));
    this.pty = spawn(process.execPath, [CLI, ...args], {
      name: termName,
      cols,
      rows,
      env: { ...env, TERM: termName, LANG: 'C.UTF-8' },
    });
    this.pty.onData((d) => {
      this.raw += d;
      this.term.write(d);
    });
    this.exited = new Promise((resolve) => {
      this.pty.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        resolve(exitCode);
      });
    });
  }

  protected flush(): Promise<void> {
    return new Promise((r) => this.term.write('', r));
  }

  async grab(): Promise<Grab> {
    await this.flush();
    const b = this.term.buffer.active;
    const lines: string[] = [];
    const wrapped: number[] = [];
    const black: Grab['black'] = [];
    const sig: string[] = [];
    let currentTab = '';
    for (let row = 0; row < this.rows; row++) {
      const line = b.getLine(b.viewportY + row);
      lines.push(line?.translateToString(true) ?? '');
      if (row > 0 && line?.isWrapped) wrapped.push(row - 1);
      const cells: string[] = [];
      for (let col = 0; line && col < this.cols; col++) {
        const c = line.getCell(col);
        if (!c) continue;
        const ch = c.getChars();
        if (row === 0 && c.isInverse()) currentTab += ch || ' ';
        const fg = c.isFgDefault() ? 'd' : `${c.getFgColorMode()}:${c.getFgColor()}`;
        const bg = c.isBgDefault() ? 'd' : `${c.getBgColorMode()}:${c.getBgColor()}`;
        cells.push(`${fg}/${bg}/${c.isInverse() ? 'i' : ''}${c.isBold() ? 'b' : ''}:${ch || ' '}`);
        const blackFg = (c.isFgPalette() && (c.getFgColor() === 0 || c.getFgColor() === 16)) || (c.isFgRGB() && c.getFgColor() === 0);
        if (blackFg && c.isBgDefault() && !c.isInverse() && ch.trim() !== '') black.push({ row, col, ch });
      }
      while (cells.length && cells[cells.length - 1] === 'd/d/: ') cells.pop();
      sig.push(cells.join(''));
    }
    return { cols: this.cols, rows: this.rows, lines, wrapped, black, signature: sig.join('\n'), currentTab };
  }

  lines(): string[] {
    const b = this.term.buffer.active;
    return Array.from({ length: this.rows }, (_, i) => b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  }

  protected write(bytes: string): void {
    this.pty.write(bytes);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.resizedAt = Date.now();
    this.term.resize(cols, rows);
    this.pty.resize(cols, rows);
  }

  async waitExit(timeout = 8000): Promise<number> {
    const t = setTimeout(() => this.pty.kill('SIGKILL'), timeout);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }

  dispose(): void {
    if (this.exitCode === null) this.pty.kill('SIGKILL');
    this.term.dispose();
  }
}
