// The one PTY harness: the real `cleanerx` binary (dist/cli.js) in a real
// terminal — a pseudo-terminal read through a headless xterm, or a real tmux
// (its own server on a private socket, no user config) read with
// `tmux capture-pane` — in the isolated env the test made (temp-env.ts),
// keys in, screen out. Every successful wait is a step of the journey: the
// screen invariants (screen-invariants.ts) are checked after it, and the
// screen must equal a full redraw (Ctrl-L) of the same state.
//
// waitSettled() reads the app's own "settled" signal (CLEANERX_SETTLED_FILE:
// a line each time the app goes idle after a render), for the waits that mean
// "nothing more will happen"; waitFor() is for specific text.
//
// openApp() registers the screen for teardown after the test (the setup
// file's afterEach), so a failing test leaves no app, tmux server or temp dir
// behind.

import { spawn, type IPty } from '@lydell/node-pty';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import xterm from '@xterm/headless';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPINNER } from '../../src/widgets/spinner.js';
import { budget } from './budget.js';
import { CLI } from './constants.js';
import { describe as describeProblems, parseTmuxCapture, screenProblems, type Grab } from './screen-invariants.js';

export { CLI } from './constants.js';

const { Terminal } = xterm;

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

/** The app's placeholders for what is still loading, and the busy box's spinner (src/modals/busy.ts): a long operation under way. */
const PENDING = new RegExp(`Loading details…|Scanning…|Waiting for scan data|Preparing the review|Reading the backup key|[${SPINNER.join('')}]`);

const RESIZE_SETTLE = 600;
/**
 * The output is quiet once no byte has come for this long. The app writes a
 * frame in one write, but the terminal takes it in chunks: between two of
 * them the screen shows the new frame's top over the old one's bottom.
 */
const OUTPUT_QUIET_MS = 80;
/** The longest wait for the app's settled signal before a redraw comparison. */
const APP_SETTLE_MAX = 8000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A terminal running cleanerx: what every journey drives, whichever terminal it is. */
export abstract class ScreenDriver {
  exitCode: number | null = null;
  protected resizedAt = 0;
  /** Checked after every successful wait; a test that means to see a broken screen turns it off. */
  checkInvariants = true;
  steps = 0;

  /** The app's settled signal: the file it appends `settled <n>` to, and the count when the last key went in. */
  protected readonly scratch: string;
  settledFile: string;
  private settledAtInput = 0;
  /** The app never settled within APP_SETTLE_MAX once: later steps do not wait for it again. */
  private settleTimedOut = false;
  /** When output last came from the app (Date.now()), as far as the driver can tell. */
  protected abstract lastOutputAt(): number;

  constructor(
    public cols: number,
    public rows: number,
  ) {
    this.scratch = mkdtempSync(join(tmpdir(), 'cleanerx-screen-'));
    this.settledFile = join(this.scratch, 'settled');
  }

  /** How many times the app has said it is settled so far. */
  settledCount(): number {
    return this.signalLines().filter((l) => l.startsWith('settled ')).length;
  }

  /** How many changes the app made by itself so far (a notice that faded: `changed <k>` lines). */
  selfChanges(): number {
    return this.signalLines().filter((l) => l.startsWith('changed ')).length;
  }

  private signalLines(): string[] {
    try {
      return readFileSync(this.settledFile, 'utf8').split('\n');
    } catch {
      return [];
    }
  }

  /**
   * Waits until the app went idle after the last key (or after the start):
   * its answer is on screen and nothing more will happen by itself. Then the
   * step's invariants are checked. Resolves with the screen text.
   */
  async waitSettled(timeout = 15000): Promise<string> {
    const end = Date.now() + budget(timeout);
    for (;;) {
      if (this.settledCount() > this.settledAtInput) break;
      await this.flush();
      if (this.exitCode !== null) throw new Error(`cleanerx exited (${this.exitCode}) while waiting for it to settle\n${this.text()}`);
      if (Date.now() > end) throw new Error(`cleanerx did not settle within ${timeout} ms after the last key (${this.where}); screen:\n${this.text()}`);
      await sleep(10);
    }
    // The frame went out before the line: let the terminal take it.
    await sleep(30);
    await this.flush();
    await this.step('after the app settled');
    return this.text();
  }

  /** Written before every key: the next waitSettled() waits for a line after it. */
  protected input(bytes: string): void {
    this.markInput();
    this.write(bytes);
  }

  /** A key or a resize: what the next waitSettled() waits to see answered. */
  protected markInput(): void {
    this.settledAtInput = this.settledCount();
  }

  /** The env the app runs with: the test's, the terminal's, and the settled signal. */
  protected appEnv(env: Readonly<Record<string, string | undefined>>, termName: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
    // A UTF-8 locale always (the frame is UTF-8); the test's own one when it names one (zh_CN.UTF-8 chooses Chinese).
    const LANG = out.LANG && /utf-?8/i.test(out.LANG) ? out.LANG : 'C.UTF-8';
    // A test that reads the signal itself names the file; waitSettled() reads that one then.
    // `CLEANERX_SETTLED_FILE: undefined` runs the app without the signal (waitSettled() then times out).
    if ('CLEANERX_SETTLED_FILE' in env && env.CLEANERX_SETTLED_FILE === undefined) {
      this.settledSignalOff = true;
      return { ...out, TERM: termName, LANG };
    }
    if (out.CLEANERX_SETTLED_FILE) this.settledFile = out.CLEANERX_SETTLED_FILE;
    return { ...out, TERM: termName, LANG, CLEANERX_SETTLED_FILE: this.settledFile };
  }

  protected removeScratch(): void {
    // A pane's shell may still be writing its exit file, and an exiting app its settled signal, as the
    // server goes; on a loaded machine for longer than rmSync's own retries: retry within the budget.
    const end = Date.now() + budget(5_000);
    for (;;) {
      try {
        return rmSync(this.scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || Date.now() > end) throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      }
    }
  }

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
    for (const k of keys) this.input(k);
  }

  type(s: string): void {
    this.input(s);
  }

  async waitFor(pattern: RegExp | string, timeout = 8000): Promise<string> {
    const end = Date.now() + budget(timeout);
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
    const end = Date.now() + budget(timeout);
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

  /**
   * Waits until no output has come for `quiet` ms (at most `max` ms), so a
   * grab never catches a frame half taken by the terminal. Resolves false when
   * the output never paused.
   */
  async outputQuiet(quiet = OUTPUT_QUIET_MS, max = 2000): Promise<boolean> {
    const end = Date.now() + max;
    for (;;) {
      await this.flush();
      // Let the event loop read what is already waiting (a timer can run before the I/O it raced).
      await new Promise((r) => setImmediate(r));
      await this.flush();
      const idle = Date.now() - this.lastOutputAt();
      if (idle >= quiet) return true;
      if (Date.now() > end) return false;
      await sleep(Math.min(quiet - idle, 20) + 1);
    }
  }

  /**
   * Whether the app has gone idle since the last key (its settled signal),
   * waiting for it at most APP_SETTLE_MAX; true when the signal is off (nothing to wait for).
   */
  private async appSettled(): Promise<boolean> {
    if (this.settleTimedOut) return false;
    if (this.settledSignalOff) return true;
    const end = Date.now() + APP_SETTLE_MAX;
    while (this.settledCount() <= this.settledAtInput) {
      if (this.exitCode !== null) return false;
      if (Date.now() > end) {
        this.settleTimedOut = true;
        return false;
      }
      await sleep(10);
    }
    return true;
  }

  /** The test ran the app without the settled signal. */
  protected settledSignalOff = false;

  /** The invariants, then the redraw check: Ctrl-L must change nothing a settled screen shows. */
  async step(where: string): Promise<void> {
    this.steps++;
    if (!this.checkInvariants || this.exitCode !== null) return;
    // blessed redraws 300 ms after a resize: until then the terminal shows the old frame, reflowed.
    const since = Date.now() - this.resizedAt;
    if (since < RESIZE_SETTLE) await sleep(RESIZE_SETTLE - since);
    // Every screen checked is a whole frame: the output has paused (a frame the terminal has taken only in part
    // showed the review's prompt over the old footer and no bottom border).
    await this.outputQuiet();
    // While something is still on its way (a scan, a detail) the screen is checked as it is, without waiting
    // (the journey may be watching that very moment); the redraw comparison needs a state that holds still.
    const now = await this.grab();
    if (PENDING.test(now.lines.join('\n'))) {
      const problems = screenProblems(now);
      if (problems.length) throw new Error(describeProblems(problems, now, `${where} (${this.where})`));
      return;
    }
    // The redraw comparison waits for the app to be idle (no page, detail or plan on its way): a page
    // answered after a short quiet spell is a change of state, not a stale cell (under load the first
    // page of a start came 200–650 ms after the tab's count, and "Nothing matches" was taken for stale).
    const idle = await this.appSettled();
    await this.outputQuiet();
    // A longer quiet spell first: a page still on its way is a change of state, not a stale cell.
    const changes = this.selfChanges();
    const base = await this.settle(150);
    const problems = screenProblems(base.grab);
    if (problems.length) throw new Error(describeProblems(problems, base.grab, `${where} (${this.where})`));
    if (!idle || !base.settled || PENDING.test(base.grab.lines.join('\n'))) return;
    this.write(KEYS.ctrlL);
    const after = await this.settle();
    if (!after.settled || after.grab.signature === base.grab.signature) return;
    // The state may have moved on by itself (a clock, a scan): a second redraw tells a stale cell from a change.
    this.write(KEYS.ctrlL);
    const again = await this.settle();
    // A notice that faded between the frame and the first redraw: a change of state the app said it made, not a stale cell.
    if (this.selfChanges() !== changes) return;
    if (again.settled && again.grab.signature === after.grab.signature) {
      const a = base.grab.signature.split('\n');
      const b = after.grab.signature.split('\n');
      const diff = a
        .map((row, i) =>
          row === b[i] ? null : `  line ${i + 1}: drawn  |${base.grab.lines[i]?.trimEnd()}|\n          redrawn|${after.grab.lines[i]?.trimEnd()}|`,
        )
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
  private lastData = Date.now();

  /** `program`: the script node runs (the built cleanerx unless a harness test puts a stand-in there). */
  constructor(args: string[], env: Readonly<Record<string, string | undefined>>, cols = 100, rows = 30, termName = 'xterm-256color', program: string = CLI) {
    super(cols, rows);
    this.where = `xterm headless TERM=${termName} ${cols}×${rows}`;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    // Emoji are two columns wide, as in tmux and every current terminal (xterm.js defaults to Unicode 6).
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.onTitleChange((t) => this.titles.push(t));
    this.pty = spawn(process.execPath, [program, ...args], {
      name: termName,
      cols,
      rows,
      env: this.appEnv(env, termName),
    });
    this.pty.onData((d) => {
      this.lastData = Date.now();
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

  protected lastOutputAt(): number {
    return this.lastData;
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
    this.markInput();
    this.term.resize(cols, rows);
    this.pty.resize(cols, rows);
  }

  async waitExit(timeout = 8000): Promise<number> {
    const t = setTimeout(() => this.pty.kill('SIGKILL'), budget(timeout));
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }

  /** The master side closes (writes now fail with EIO) and the kernel hangs up: a closed terminal window or SSH link. */
  hangUp(): void {
    // node-pty has destroy() at run time; its typings leave it out.
    (this.pty as IPty & { destroy(): void }).destroy();
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.exitCode === null) this.pty.kill('SIGKILL');
    this.term.dispose();
    this.removeScratch();
  }
}

export const TMUX = '/usr/bin/tmux';
/** The longest a capture of a pane that had no output since is reused (TmuxScreen.capture). */
const CAPTURE_MAX_AGE = 250;

/** Stops at once, in one line, when tmux is missing (npm test installs it where it can). */
export function requireTmux(): void {
  if (!existsSync(TMUX)) throw new Error(`${TMUX} is missing: install Debian's tmux (apt-get install tmux) to run the PTY journeys under tmux.`);
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export class TmuxScreen extends ScreenDriver {
  readonly where: string;
  private readonly dir: string;
  private readonly socket: string;
  private readonly exitFile: string;
  private readonly stoppedFile: string;
  private readonly resumeFile: string;
  /** The pane's output as tmux reads it (pipe-pane): only its growth is watched, for outputQuiet(). */
  private readonly outputFile: string;
  private outputSize = 0;
  private outputAt = Date.now();
  private disposed = false;

  constructor(args: string[], env: Readonly<Record<string, string | undefined>>, cols = 100, rows = 30, termName = 'tmux-256color') {
    super(cols, rows);
    requireTmux();
    this.where = `tmux TERM=${termName} ${cols}×${rows}`;
    this.dir = this.scratch;
    this.socket = join(this.dir, 'sock');
    this.exitFile = join(this.dir, 'exit');
    this.stoppedFile = join(this.dir, 'stopped');
    this.resumeFile = join(this.dir, 'resume');
    this.outputFile = join(this.dir, 'output');
    const conf = join(this.dir, 'tmux.conf');
    writeFileSync(
      conf,
      [
        `set -g default-terminal ${termName}`,
        'set -g default-shell /bin/sh',
        'set -g status off',
        'set -g escape-time 0',
        'set -g remain-on-exit off',
        '',
      ].join('\n'),
    );
    const vars = this.appEnv(env, termName);
    const run = ['env -i', ...Object.entries(vars).map(([k, v]) => shQuote(`${k}=${v}`)), shQuote(process.execPath), shQuote(CLI), ...args.map(shQuote)].join(
      ' ',
    );
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
    this.tmux(['pipe-pane', '-t', 'main', `cat >> ${shQuote(this.outputFile)}`]);
  }

  protected lastOutputAt(): number {
    const size = Math.max(this.outputSize, this.outputFileSize());
    if (size !== this.outputSize) {
      this.outputSize = size;
      this.outputAt = Date.now();
    }
    return this.outputAt;
  }

  private tmux(args: string[]): string {
    return execFileSync(TMUX, ['-S', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
  }

  /**
   * The text captures a wait polls (lines(), styled()), kept while no byte
   * has reached the pane since and no key or resize went in: a wait polls
   * every 20 ms and each capture is a tmux client forked from the worker.
   * The pane changes only with the app's output, which tmux hands to
   * pipe-pane as it takes it in, or with a resize. The output file's size is
   * read before the capture, so output that passes the capture grows it
   * afterwards and the next poll captures again; CAPTURE_MAX_AGE bounds what
   * a slow `cat` could delay. grab() never uses them.
   */
  private captures = new Map<string, { text: string; size: number; at: number }>();

  private capture(args: string[]): string {
    const key = args.join(' ');
    const size = this.outputFileSize();
    const now = Date.now();
    const kept = this.captures.get(key);
    if (kept && size >= 0 && kept.size === size && now - kept.at < CAPTURE_MAX_AGE) return kept.text;
    const text = this.tmux(args);
    this.captures.set(key, { text, size, at: now });
    return text;
  }

  /** The pane's output so far in bytes; -1 before pipe-pane has made the file. */
  private outputFileSize(): number {
    try {
      return statSync(this.outputFile).size;
    } catch {
      return -1;
    }
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
      const text = this.capture(['capture-pane', '-p', '-t', 'main']);
      const rows = text.replace(/\n$/, '').split('\n');
      while (rows.length < this.rows) rows.push('');
      return rows.slice(0, this.rows);
    } catch {
      this.pollExit();
      return Array(this.rows).fill('');
    }
  }

  /** Every byte the app wrote to the pane so far (tmux's pipe-pane): each frame it ever drew. */
  raw(): string {
    try {
      return readFileSync(this.outputFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** The pane with its SGR escapes inline, as tmux holds it. */
  styled(): string {
    return this.capture(['capture-pane', '-p', '-e', '-t', 'main']);
  }

  async grab(): Promise<Grab> {
    // Always fresh: the invariants and the redraw comparison judge this very moment's pane.
    const text = this.tmux(['capture-pane', '-p', '-e', '-N', '-t', 'main']);
    const joined = this.tmux(['capture-pane', '-p', '-J', '-t', 'main']);
    return parseTmuxCapture(text, joined, this.cols, this.rows);
  }

  protected write(bytes: string): void {
    // -H: the bytes as they are, in one write to the pane (keys typed at once).
    const hex = [...Buffer.from(bytes, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
    this.captures.clear();
    if (hex.length) this.tmux(['send-keys', '-t', 'main', '-H', ...hex]);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.resizedAt = Date.now();
    this.markInput();
    this.tmux(['resize-window', '-t', 'main', '-x', String(cols), '-y', String(rows)]);
    this.captures.clear();
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
    const end = Date.now() + budget(timeout);
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
    this.removeScratch();
  }
}

// The terminals a journey runs in: real tmux with the terminal types tmux and
// screen users have, and a headless xterm; at the sizes people use.

export interface TerminalKind {
  kind: 'tmux' | 'headless';
  term: string;
}

export const TERMINALS: TerminalKind[] = [
  { kind: 'tmux', term: 'tmux-256color' },
  { kind: 'tmux', term: 'screen-256color' },
  { kind: 'tmux', term: 'xterm' },
  { kind: 'tmux', term: 'xterm-256color' },
  { kind: 'headless', term: 'xterm-256color' },
];

export const SIZES: [number, number][] = [
  [80, 24],
  [100, 30],
  [160, 45],
];

export interface Config {
  name: string;
  terminal: TerminalKind;
  cols: number;
  rows: number;
}

/** Every terminal at every size. */
export function fullMatrix(): Config[] {
  return TERMINALS.flatMap((terminal) => SIZES.map(([cols, rows]) => ({ name: `${terminal.kind} ${terminal.term} ${cols}×${rows}`, terminal, cols, rows })));
}

export function openScreen(c: Config, args: string[], env: Readonly<Record<string, string | undefined>>): ScreenDriver {
  return c.terminal.kind === 'tmux' ? new TmuxScreen(args, env, c.cols, c.rows, c.terminal.term) : new PtyScreen(args, env, c.cols, c.rows, c.terminal.term);
}

export const TMUX_80x24: Config = { name: 'tmux tmux-256color 80×24', terminal: TERMINALS[0]!, cols: 80, rows: 24 };
export const HEADLESS_100x30: Config = { name: 'headless xterm-256color 100×30', terminal: TERMINALS[4]!, cols: 100, rows: 30 };

export interface OpenApp {
  /** The app's arguments ([] = the full-screen app). */
  args?: string[];
  /** The isolated env (makeTempEnv().env, plus what the test adds). */
  env: Readonly<Record<string, string | undefined>>;
  /** A headless xterm (the default) or tmux; a Config from the matrix sets the size too. */
  terminal?: Config | 'headless' | 'tmux';
  cols?: number;
  rows?: number;
  /** The TERM the app sees (xterm-256color headless, tmux-256color in tmux). */
  term?: string;
  /** Headless only: a script run in place of dist/cli.js (the harness's own tests drive a stand-in app). */
  program?: string;
}

const open = new Set<ScreenDriver>();
// A worker runs many files with one copy of this module (vitest.config.ts: isolate false), so a hook
// registered here would belong to the first file alone and every later file's screens (their tmux
// servers and apps) would outlive it: agents-setup.ts, which runs for every file, calls this after each test.
(globalThis as { cleanerxDisposeScreens?: () => void }).cleanerxDisposeScreens = () => {
  for (const s of open) s.dispose();
  open.clear();
};

/** Starts the app in a terminal; it is disposed after the test whatever happens. */
export function openApp(o: OpenApp): ScreenDriver {
  const args = o.args ?? [];
  let s: ScreenDriver;
  if (typeof o.terminal === 'object') s = openScreen(o.terminal, args, o.env);
  else if (o.terminal === 'tmux') s = new TmuxScreen(args, o.env, o.cols ?? 100, o.rows ?? 30, o.term ?? 'tmux-256color');
  else s = new PtyScreen(args, o.env, o.cols ?? 100, o.rows ?? 30, o.term ?? 'xterm-256color', o.program);
  open.add(s);
  return s;
}

/** The headless terminal of openApp, typed as such (raw output, titles, hang-up). */
export function openPty(o: Omit<OpenApp, 'terminal'>): PtyScreen {
  return openApp({ ...o, terminal: 'headless' }) as PtyScreen;
}

/** The tmux terminal of openApp, typed as such (Ctrl-Z stops, fg resumes). */
export function openTmux(o: Omit<OpenApp, 'terminal'>): TmuxScreen {
  return openApp({ ...o, terminal: 'tmux' }) as TmuxScreen;
}
