// Drives the real `cleanerx` binary in a pseudo-terminal and reads the screen
// through a headless xterm, as a user would see it.

import { spawn, type IPty } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { fileURLToPath } from 'node:url';

const { Terminal } = xterm;
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  space: ' ',
  ctrlC: '\x03',
  backspace: '\x7f',
};

export class PtyScreen {
  readonly term: InstanceType<typeof Terminal>;
  readonly pty: IPty;
  raw = '';
  exitCode: number | null = null;
  titles: string[] = [];
  private exited: Promise<number>;

  constructor(args: string[], env: Record<string, string>, public cols = 100, public rows = 30) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.term.onTitleChange((t) => this.titles.push(t));
    this.pty = spawn(process.execPath, [CLI, ...args], {
      name: 'xterm-256color',
      cols,
      rows,
      env: { ...env, TERM: 'xterm-256color', LANG: 'C.UTF-8' },
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

  private flush(): Promise<void> {
    return new Promise((r) => this.term.write('', r));
  }

  lines(): string[] {
    const b = this.term.buffer.active;
    return Array.from({ length: this.rows }, (_, i) => b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  }

  text(): string {
    return this.lines().join('\n');
  }

  async waitFor(pattern: RegExp | string, timeout = 8000): Promise<string> {
    const end = Date.now() + timeout;
    for (;;) {
      await this.flush();
      const t = this.text();
      if (typeof pattern === 'string' ? t.includes(pattern) : pattern.test(t)) return t;
      if (this.exitCode !== null) throw new Error(`cleanerx exited (${this.exitCode}) while waiting for ${pattern}\n${t}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${t}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async waitForNot(pattern: RegExp | string, timeout = 8000): Promise<void> {
    const end = Date.now() + timeout;
    for (;;) {
      await this.flush();
      const t = this.text();
      if (!(typeof pattern === 'string' ? t.includes(pattern) : pattern.test(t))) return;
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} to go; screen:\n${t}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async waitForLine(pattern: RegExp, timeout = 8000): Promise<string> {
    await this.waitFor(new RegExp(pattern.source, 'm'), timeout);
    return this.lines().find((l) => pattern.test(l))!;
  }

  press(...keys: string[]): void {
    for (const k of keys) this.pty.write(k);
  }

  type(s: string): void {
    this.pty.write(s);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
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
