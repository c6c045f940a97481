// The real `cleanerx --demo` in a terminal: every way out removes the demo
// home from the temp dir (q, Ctrl-C, a closed terminal's SIGHUP, SIGTERM,
// SIGINT); a home left by SIGKILL is removed by the next --demo; and with a
// PATH that lacks node_modules/.bin (the installed bin, not `npm start`) the
// demo still runs the pinned Codex, so its threads are there.

import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_FILE } from '../../src/demo/demo-owner.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
afterEach(() => {
  t?.cleanup();
});

function demoIn(): { tmp: string; env: Record<string, string> } {
  t = makeTempEnv();
  const tmp = join(t.root, 'tmp');
  mkdirSync(tmp);
  // PATH as a user's shell has it: no node_modules/.bin.
  return { tmp, env: { ...t.env, TMPDIR: tmp, PATH: '/usr/bin:/bin' } };
}

function demoScreen(args: string[], env: Record<string, string>): PtyScreen {
  const p = openPty({ args, env, cols: 100, rows: 30 });
  // These tests are about the demo home's lifetime: no Ctrl-L redraw checks
  // between the steps (the journeys check the screen invariants).
  (p as { checkInvariants?: boolean }).checkInvariants = false;
  return p;
}

async function openDemo(env: Record<string, string>): Promise<PtyScreen> {
  const p = demoScreen(['--demo'], env);
  await p.waitFor(/Agent \[pi\]\s+Last scan/, 30_000);
  return p;
}

// After the app exited there is no app to say it settled: what these wait for is
// a child of the demo that might still write, so they give it a fixed time.
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('the demo home goes with the demo', () => {
  const exits: [string, (p: PtyScreen) => void][] = [
    ['q', (p) => p.type('q')],
    ['Ctrl-C', (p) => p.press(KEYS.ctrlC)],
    ['SIGHUP', (p) => p.pty.kill('SIGHUP')],
    // The master side closes (writes now fail with EIO) and the kernel hangs up: a closed terminal window or SSH link.
    ['the terminal closes', (p) => p.hangUp()],
    ['SIGTERM', (p) => p.pty.kill('SIGTERM')],
    ['SIGINT', (p) => p.pty.kill('SIGINT')],
  ];

  it.each(exits)(
    '%s: nothing is left in the temp dir',
    async (_name, leave) => {
      const { tmp, env } = demoIn();
      pty = await openDemo(env);
      expect(readdirSync(tmp).filter((n) => n.startsWith('cleanerx-demo-'))).toHaveLength(1);
      leave(pty);
      await pty.waitExit(20_000);
      expect(readdirSync(tmp)).toEqual([]);
      // Nothing the demo started comes back to write into it.
      await settle(1000);
      expect(readdirSync(tmp)).toEqual([]);
    },
    60_000,
  );

  it(
    'SIGKILL leaves it, marked; the next --demo removes it',
    async () => {
      const { tmp, env } = demoIn();
      pty = await openDemo(env);
      pty.pty.kill('SIGKILL');
      await pty.waitExit(10_000);
      pty.dispose();
      const left = readdirSync(tmp).filter((n) => n.startsWith('cleanerx-demo-'));
      expect(left).toHaveLength(1);
      expect(existsSync(join(tmp, left[0]!, OWNER_FILE))).toBe(true);
      // Whatever the killed demo had started may still be winding down.
      await settle(1500);
      pty = await openDemo(env);
      expect(existsSync(join(tmp, left[0]!))).toBe(false);
      pty.type('q');
      await pty.waitExit(20_000);
      expect(readdirSync(tmp)).toEqual([]);
    },
    budget(90_000),
  );
});

describe('the demo runs the agents pinned beside cleanerx', () => {
  it(
    'without node_modules/.bin on PATH, Codex is installed and its threads are listed',
    async () => {
      const { env } = demoIn();
      pty = await openDemo(env);
      pty.press(']');
      await pty.waitFor(/Agent \[Codex\]\s+Last scan/, 30_000);
      const tab = pty.lines()[0]!.match(/Sessions \((\d+)\)/);
      expect(Number(tab?.[1] ?? 0)).toBeGreaterThanOrEqual(60);
      pty.type('q');
      await pty.waitExit(20_000);
    },
    budget(60_000),
  );

  it(
    '--agent codex opens on Codex, not on the saved agent (pi)',
    async () => {
      const { env } = demoIn();
      pty = demoScreen(['--demo', '--agent', 'codex'], env);
      await pty.waitFor(/Agent \[Codex\]\s+Last scan/, 30_000);
      expect(pty.text()).not.toMatch(/Agent \[pi\]/);
      pty.type('q');
      await pty.waitExit(20_000);
    },
    budget(60_000),
  );
});
