// `c` and `y` reach the clipboard over OSC 52 through real tmux: the built
// app runs in a tmux server of its own (`-L copy-<pid>`, `set -g
// set-clipboard on`, 80×24, TERM=tmux-256color) on a Claude Code home whose
// project folder is hostile to a shell; after the key, `tmux show-buffer`
// holds exactly the quoted command (and then the id and file), and the
// dialog shows it whole for terminals that refuse OSC 52.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import { CLI, requireTmux, TMUX } from '../helpers/app-screen.js';
import { budget } from '../helpers/budget.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

const SOCKET = `copy-${process.pid}`;
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let t: TempEnv;
let manifest: ClaudeFixtureManifest;

function tmux(...args: string[]): string {
  return execFileSync(TMUX, ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: budget(5000) });
}

const pane = (): string => tmux('capture-pane', '-p', '-t', 'main');

/** The newest tmux buffer, or '' while there is none. */
function buffer(): string {
  try {
    return tmux('show-buffer');
  } catch {
    return '';
  }
}

async function until<T>(what: string, probe: () => T | undefined, timeout = 30_000): Promise<T> {
  const end = Date.now() + budget(timeout);
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; pane:\n${pane()}\nbuffer: ${JSON.stringify(buffer())}`);
    await sleep(50);
  }
}

const shows = (pattern: RegExp): Promise<string> => until(String(pattern), () => (pattern.test(pane()) ? pane() : undefined), 60_000);
const buffered = (text: string): Promise<string> => until(`the buffer to be ${JSON.stringify(text)}`, () => (buffer() === text ? text : undefined), 10_000);

function startApp(clipboard: 'on' | 'external'): void {
  const conf = join(t.root, 'tmux.conf');
  writeFileSync(conf, ['set -g default-shell /bin/sh', 'set -g status off', 'set -g escape-time 0', `set -g set-clipboard ${clipboard}`, ''].join('\n'));
  const vars = { ...t.env, TERM: 'tmux-256color', LANG: 'C.UTF-8' };
  // TMUX comes from the pane's own shell: the app must see it to choose the tmux route.
  const run = ['env -i TMUX="$TMUX"', ...Object.entries(vars).map(([k, v]) => q(`${k}=${v}`)), q(process.execPath), q(CLI)].join(' ');
  tmux('-f', conf, 'new-session', '-d', '-s', 'main', '-x', '80', '-y', '24', run);
}

beforeEach(() => {
  requireTmux();
  t = makeTempEnv();
  manifest = buildClaudeFixture({
    configDir: t.env.CLAUDE_CONFIG_DIR!,
    projects: 1,
    sessionsPerProject: 1,
    seed: 3,
    // Quote, dollar, space: what the copied command must quote to cd there.
    cwdRoot: join(t.env.HOME!, "it's a $dir `x`"),
  });
  fakeAgentBins(t, { claude: '2.1.332 (Claude Code)' });
  targetAgent(t, 'claude');
});

afterEach(() => {
  try {
    tmux('kill-server');
  } catch {
    // Already gone with its last pane.
  }
  t.cleanup();
});

describe('copy over OSC 52 through real tmux at 80×24', () => {
  it(
    'c puts the quoted resume command in the tmux buffer, y the id and file; both are shown whole',
    async () => {
      const s = manifest.sessions[0]!;
      expect(manifest.sessions).toHaveLength(1);
      startApp('on');
      await shows(/1 sessions? · /);
      // The tree's first row is the project; its session is next.
      tmux('send-keys', '-t', 'main', 'j');
      await shows(new RegExp(`Identifier\\s+${s.id}`));
      tmux('send-keys', '-t', 'main', 'c');
      const resume = `cd ${q(s.cwd!)} && claude --resume ${s.id}`;
      expect(resume).toContain(`'\\''s a $dir \`x\`/`);
      await buffered(resume);
      const dialog = await shows(/Copied: resume command/);
      // Whole on screen: the dialog's lines, joined, hold every character of it.
      const inside = dialog
        .split('\n')
        .map((l) => /│ (.*?)\s*│/.exec(l)?.[1] ?? '')
        .join('');
      expect(inside.replace(/ /g, '')).toContain(resume.replace(/ /g, ''));
      expect(dialog).toMatch(/set-clipboard on/);

      tmux('send-keys', '-t', 'main', 'Escape');
      await until('the dialog to close', () => (/Copied:/.test(pane()) ? undefined : true));
      tmux('send-keys', '-t', 'main', 'y');
      // The bucket's name is Claude's slug of the folder (no quote left in it): a plain word, copied bare.
      expect(s.file).toMatch(/^[\w@%+:,./-]+$/);
      await buffered(`${s.id} ${s.file}`);
      await shows(/Copied: id and file/);

      tmux('send-keys', '-t', 'main', 'Escape');
      await until('the dialog to close', () => (/Copied:/.test(pane()) ? undefined : true));
      tmux('send-keys', '-t', 'main', 'q');
      await until('the app to quit', () => {
        try {
          pane();
          return undefined;
        } catch {
          return true;
        }
      });
    },
    budget(120_000),
  );
});
