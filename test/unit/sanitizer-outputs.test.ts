// No raw text from other users reaches the terminal: hostile process names
// (another user's process can name itself `\e]0;PWNED\a` or
// `\e]52;c;…\a`, which set the pane title and wrote the clipboard through
// tmux), a hostile home override in config.json, a hostile config dir and
// invalid settings whose error quotes the file — fed through every output
// path of the real binary: scan, scan --json, doctor, clean (refused, and
// blocked by the hostile writer) and the error printer. Nothing but printable
// text and newlines may come out; JSON keeps the data exact as \u escapes.

import blessed from 'blessed';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { installTerminalWidths } from '../../src/widgets/terminal-width.js';
import { braces } from '../../src/widgets/theme.js';
import { CLI, PtyScreen } from '../helpers/pty-screen.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

installTerminalWidths();

// C0 but newline, DEL, C1, and the bidi / invisible characters the display form removes.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

const OSC_TITLE = '\x1b]0;PWNED\x07';
const OSC_CLIPBOARD = '\x1b]52;c;cm0gLXJmIH4=\x07';
const C1_TITLE = '\u009d0;PWNED\u009c';
const CSI = '\x1b[2J\x1b[31m\u009b31m';
const INVISIBLE = '\u202e\u200b\u2066\u00ad\ufeff';

let t: TempEnv;
let piHome: string;
let claudeHome: string;
beforeEach(() => {
  t = makeTempEnv();
  // pi lives under a hostile directory name, named by a settings override.
  piHome = join(t.root, `pi${OSC_TITLE}${C1_TITLE}${INVISIBLE}home`);
  buildPiFixture({ agentDir: piHome, projects: 1, sessionsPerProject: 2, forkRate: 0, config: false, cwdRoot: join(t.env.HOME!, 'src') });
  // Claude Code's home too (its data makes it detected, so its writers are shown).
  claudeHome = join(t.root, `claude${OSC_CLIPBOARD}${CSI}`);
  mkdirSync(join(claudeHome, 'projects', '-srv-app'), { recursive: true });
  writeFileSync(join(claudeHome, 'history.jsonl'), '{}\n');
  writeSettings({ version: 1, homeOverrides: { pi: piHome, claude: claudeHome } });
});
afterEach(() => t.cleanup());

function writeSettings(v: unknown): void {
  mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), typeof v === 'string' ? v : JSON.stringify(v));
}

/** Hostile writers: pi and Claude Code processes (by argv[0]) whose comm is an escape sequence. */
function hostileWriters(): void {
  fakeProcess(t.procRoot, 4242, OSC_TITLE, ['pi']);
  fakeProcess(t.procRoot, 4343, `${OSC_CLIPBOARD}${C1_TITLE}`, ['claude']);
  fakeProcess(t.procRoot, 4444, `${CSI}${INVISIBLE}`, [`/opt/${OSC_TITLE}/pi`]);
}

function run(args: string[], env: Record<string, string> = t.env) {
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input: '' });
}

function expectClean(r: { stdout: string; stderr: string }, what: string): void {
  for (const [stream, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    const m = UNSAFE.exec(text);
    expect(
      m &&
        `${what}: ${stream} carries U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}`,
    ).toBeNull();
  }
}

describe('hostile process names, paths and settings never reach the terminal raw', () => {
  it('scan prints the writers and homes cleaned', () => {
    hostileWriters();
    const r = run(['scan']);
    expect(r.status).toBe(0);
    expectClean(r, 'scan');
    expect(r.stdout).toContain('(pid 4242;');
    expect(r.stdout).toContain('(pid 4343;');
    expect(r.stdout).toMatch(/home +\/.*claude/);
    expect(r.stdout).toMatch(/running +pi \(pid 4242;/);
  });

  it('scan --json escapes them and keeps the data exact', () => {
    hostileWriters();
    const r = run(['scan', '--json']);
    expect(r.status).toBe(0);
    expectClean(r, 'scan --json');
    const report = JSON.parse(r.stdout) as { agents: { agent: string; home: string; writers: { pid: number; name: string }[] }[] };
    const pi = report.agents.find((a) => a.agent === 'pi')!;
    expect(pi.home).toBe(piHome);
    expect(pi.writers.map((w) => w.pid).sort()).toEqual([4242, 4444]);
    expect(report.agents.find((a) => a.agent === 'claude')!.home).toBe(claudeHome);
  });

  it('doctor prints writers, homes and its own dirs cleaned', () => {
    hostileWriters();
    const hostileConfig = join(t.root, `cfg${OSC_TITLE}${C1_TITLE}`);
    const env = { ...t.env, CLEANERX_CONFIG_DIR: hostileConfig };
    mkdirSync(hostileConfig, { recursive: true });
    writeFileSync(join(hostileConfig, 'config.json'), JSON.stringify({ version: 1, homeOverrides: { pi: piHome } }));
    const r = run(['doctor'], env);
    expect(r.status).toBe(0);
    expectClean(r, 'doctor');
    expect(r.stdout).toContain('(pid 4242;');
    expect(r.stdout).toContain('settings override');
  });

  it('clean prints the home it would clean, cleaned, and refuses without --yes', () => {
    const scan = JSON.parse(run(['scan', '--agent', 'pi', '--json']).stdout) as { agents: { sessions: { id: string }[] }[] };
    const id = scan.agents[0]!.sessions[0]!.id;
    const r = run(['clean', '--agent', 'pi', '--id', id]);
    expect(r.status).toBe(2);
    expectClean(r, 'clean (refused)');
    expect(r.stdout).toMatch(/^pi home: .*pi.*home\n/);
    expect(r.stderr).toMatch(/add --yes/);
  });

  it('clean blocked by a hostile writer prints the block cleaned', () => {
    hostileWriters();
    const scan = JSON.parse(run(['scan', '--agent', 'pi', '--json']).stdout) as { agents: { sessions: { id: string }[] }[] };
    const r = run(['clean', '--agent', 'pi', '--id', scan.agents[0]!.sessions[0]!.id, '--yes']);
    expect(r.status).toBe(1);
    expectClean(r, 'clean (blocked)');
    expect(r.stderr).toMatch(/blocked: /);
  });

  it('invalid settings whose error quotes the file are reported cleaned by scan and doctor', () => {
    writeSettings(`{"version": 1, "homeOverrides": {"pi": 7}, "x": "${OSC_TITLE}"}`);
    for (const args of [['scan'], ['scan', '--json'], ['doctor']]) {
      const r = run(args);
      expect(r.status).toBe(0);
      expectClean(r, args.join(' '));
      expect(args.includes('--json') ? r.stderr : r.stdout).toMatch(/settings +.*config\.json is invalid .*using defaults/);
    }
    writeSettings(`{"version": 1, ${OSC_CLIPBOARD}`);
    const r = run(['doctor']);
    expectClean(r, 'doctor (unparsable settings)');
    expect(r.stdout).toMatch(/settings +.*is invalid/);
  });

  it('the error printer cleans what it quotes: ids, agents, flags, with and without CLEANERX_DEBUG', () => {
    const cases = [
      ['clean', '--agent', 'pi', '--id', `session:${OSC_TITLE}x`, '--yes'],
      ['scan', '--agent', `${OSC_CLIPBOARD}`],
      [`--${C1_TITLE}`],
      ['backups', 'verify', `${OSC_TITLE}${INVISIBLE}`],
    ];
    for (const args of cases) {
      for (const debug of ['0', '1']) {
        const r = run(args, { ...t.env, CLEANERX_DEBUG: debug });
        expect(r.status).not.toBe(0);
        expectClean(r, `${JSON.stringify(args)} debug=${debug}`);
        expect(r.stderr).toMatch(/cleanerx: /);
        if (debug === '0') expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
    // A relative directory override quoted back in the usage error.
    const rel = run(['scan'], { ...t.env, PI_CODING_AGENT_DIR: `rel${OSC_TITLE}${C1_TITLE}` });
    expect(rel.status).toBe(2);
    expectClean(rel, 'relative PI_CODING_AGENT_DIR');
    expect(rel.stderr).toMatch(/PI_CODING_AGENT_DIR/);
  });
});

// What the full-screen app may write itself: CSI sequences, charset and keypad
// switches, and its own window title. Anything else (OSC, DCS, APC, C1, BEL) came from data.
// eslint-disable-next-line no-control-regex
const FOREIGN_IN_TUI = /\x1b\](?!0;cleanerx\x07)|\x1b[P_^X]|[\u0080-\u009f]|(?<!\x1b\]0;cleanerx)\x07|PWNED|\x1b\[5;8m/u;

describe('the TUI draws hostile text inert', () => {
  it('blessed content (error messages, dialogs) passes the display form before it is drawn', () => {
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 6 });
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    let written = '';
    output.on('data', (d: Buffer) => (written += d.toString('utf8')));
    const origError = console.error;
    console.error = () => undefined;
    const screen = blessed.screen({
      input: input as never,
      output: output as never,
      terminal: 'xterm-256color',
      warnings: false,
      fullUnicode: true,
      forceUnicode: true,
    });
    console.error = origError;
    try {
      // As the deck and the dialogs show an engine error: brace-escaped, not cleaned.
      const message = `Cannot read ${OSC_TITLE}${C1_TITLE}/x: EACCES ${OSC_CLIPBOARD}\x1b[5;8m hidden ${INVISIBLE}\x1bPq#0\x1b\\`;
      blessed.box({ parent: screen, top: 0, left: 0, width: 80, height: 6, tags: true, content: `{red-fg}${braces(message)}{/red-fg}` });
      screen.render();
      (screen.program as unknown as { flush(): void }).flush();
      const m = FOREIGN_IN_TUI.exec(written);
      expect(m && JSON.stringify(written.slice(Math.max(0, m.index - 20), m.index + 20))).toBeNull();
      expect(written).toContain('EACCES');
    } finally {
      screen.destroy();
    }
  });

  it('the real app in a terminal: hostile writer names and homes never set the title or reach the terminal raw', async () => {
    hostileWriters();
    const pty = new PtyScreen(['--agent', 'pi'], t.env, 100, 30);
    try {
      await pty.waitFor(/pi running/, 15_000);
      pty.press('1');
      await pty.waitFor(/pid 4242/);
      pty.press('6');
      await pty.waitFor(/0;PWNED|override/);
      pty.press('q');
      await pty.waitExit(8000).catch(() => undefined);
      expect(pty.titles.filter((x) => x !== 'cleanerx')).toEqual([]);
      const m = FOREIGN_IN_TUI.exec(pty.raw);
      expect(m && JSON.stringify(pty.raw.slice(Math.max(0, m.index - 30), m.index + 30))).toBeNull();
    } finally {
      pty.dispose();
    }
  });
});

describe('one way to the terminal', () => {
  it('no source file writes to stdout or stderr except through terminal-out.ts (which takes SafeText only)', () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    // keyring-child answers its parent over a pipe in JSON, never a terminal.
    const allowed = new Set(['terminal/terminal-out.ts', 'backup/keyring-child.ts']);
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) walk(rel);
        else if (rel.endsWith('.ts') && !allowed.has(rel)) {
          const src = readFileSync(join(root, rel), 'utf8');
          if (/process\.(stdout|stderr)\.write\(|console\.(log|info|warn)\(/.test(src)) offenders.push(rel);
        }
      }
    };
    walk('');
    expect(offenders).toEqual([]);
  });
});
