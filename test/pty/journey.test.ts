// A user's journey through the real binary: open on a fixture home, move,
// expand a fork, filter, mark, switch tab, help, change agent, quit.

import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
let manifest: PiFixtureManifest;

beforeEach(() => {
  t = makeTempEnv();
  manifest = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 3,
    sessionsPerProject: 4,
    seed: 3,
    forkRate: 1,
    config: true,
    escapeTitle: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  fakeAgentBins(t, { pi: '0.73.1', claude: '2.1.332 (Claude Code)' });
  mkdirSync(join(t.env.CLAUDE_CONFIG_DIR!, 'projects'), { recursive: true });
  targetAgent(t, 'pi');
});

afterEach(() => {
  t.cleanup();
});

describe('journey at 100×30', () => {
  it('browses, expands a fork, filters, marks, switches tab and agent, and quits cleanly', async () => {
    pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    const sessions = manifest.sessions.length;
    await pty.waitFor(`Sessions (${sessions})`);
    await pty.waitFor(/Agent \[pi\]/);
    pty.press('2');
    await pty.waitFor(/\d+ sessions · /);
    // Every root has a fork (forkRate 1): walk the cursor down to the first collapsed root.
    await pty.waitForLine(/^\[ \]   ▸ /);
    const screenRow = pty.lines().findIndex((l) => /^\[ \]   ▸ /.test(l));
    const listTop = pty.lines().findIndex((l) => /^\[.\] ▾ /.test(l));
    for (let i = 0; i < screenRow - listTop; i++) pty.press('j');
    pty.press(KEYS.enter);
    await pty.waitForLine(/^\[ \]   ▾ /);
    expect(pty.lines().some((l) => /^\[ \]     (▸ |  )\S/.test(l))).toBe(true);

    // Filter on a title unique to one root and its forks.
    const target = manifest.sessions.find((s) => s.kind === 'root' && s.name === null && /\(\d+\)$/.test(s.firstUser ?? ''))!;
    const needle = target.firstUser!.match(/\(\d+\)$/)![0];
    pty.press('/');
    pty.type(needle);
    pty.press(KEYS.enter);
    await pty.waitFor(`“${needle}”`);
    const shown = pty.lines().filter((l) => l.includes(needle));
    expect(shown.length).toBeGreaterThan(0);

    // Mark one row, then everything in the filter.
    pty.press('j', KEYS.space);
    await pty.waitFor(/1 marked · /);
    pty.press('a');
    await pty.waitFor(/Marked \d+ sessions? in this filter/);
    pty.press(KEYS.esc);
    await pty.waitFor(/any time {2,}\d+ sessions · /);

    pty.press('4');
    await pty.waitFor('pi model catalog cache');
    expect(pty.text()).toContain('auth.json');

    pty.press('?');
    await pty.waitFor('Help');
    await pty.waitFor('switch tab');
    pty.press(KEYS.esc);
    // Esc followed at once by another key reads as Alt+key: wait for the help to close first.
    await pty.waitForNot('switch tab');

    pty.press(']');
    await pty.waitFor(/Agent \[Claude Code\]/);

    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
    // The terminal is given back: alternate screen left, cursor visible.
    const tail = pty.raw.slice(-400);
    expect(tail).toContain('\x1b[?1049l');
    expect(tail).toContain('\x1b[?25h');
  });

  it('shows a title holding escape sequences as inert text', async () => {
    pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    await pty.waitFor('Sessions (');
    pty.press('2', 't', '/');
    pty.type('evil');
    pty.press(KEYS.enter);
    const line = await pty.waitForLine(/evil RED/);
    expect(line).toMatch(/evil RED title/);
    expect(pty.raw).not.toContain('\x1b]0;pwned');
    expect(pty.raw).not.toContain('\x1b[31mRED');
    expect(pty.titles.some((x) => x.includes('pwned'))).toBe(false);
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});

describe('settings', () => {
  it('shows all four agents, refuses a relative override and saves an absolute one atomically', async () => {
    pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    await pty.waitFor('Sessions (');
    pty.press('6');
    await pty.waitFor(/OpenCode\s+Not detected/);
    // Versions arrive with a second detection (each agent's --version), after the states.
    await pty.waitFor(/pi\s+Installed\s+0\.73\.1/);
    await pty.waitFor(/Claude Code\s+Installed\s+2\.1\.332/);
    expect(pty.text()).toMatch(/Codex\s+Not detected/);
    pty.press(KEYS.enter);
    await pty.waitFor('Codex home (absolute path');
    pty.type('relative/codex');
    pty.press(KEYS.enter);
    await pty.waitFor('must be an absolute path');
    const elsewhere = join(t.root, 'codex-elsewhere');
    mkdirSync(join(elsewhere, 'sessions'), { recursive: true });
    pty.press(KEYS.enter);
    await pty.waitFor('Codex home (absolute path');
    pty.type(elsewhere);
    pty.press(KEYS.enter);
    await pty.waitFor('press S to save');
    pty.press('S');
    await pty.waitFor('Settings saved');
    // The row fits the path to its width (the temp dir's name sets its length): its tail and the source are always shown.
    await pty.waitFor('codex-elsewhere (override)');
    await pty.waitFor(/Codex\s+Local data only/);
    const saved = JSON.parse(readFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), 'utf8'));
    expect(saved.homeOverrides.codex).toBe(elsewhere);
    expect(saved.targetAgent).toBe('pi');
    expect(statSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json')).mode & 0o777).toBe(0o600);
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});

describe('journey at 80×24', () => {
  it('fits, survives a resize, and keeps the deck on the last two lines', async () => {
    pty = openPty({ args: [], env: t.env, cols: 80, rows: 24 });
    await pty.waitFor('Sessions (');
    pty.press('2');
    await pty.waitFor(/\d+ sessions · /);
    const lines = pty.lines();
    expect(lines[0]).toContain('1 Overview');
    expect(lines[22]).toMatch(/Agent \[pi\]/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    pty.resize(100, 30);
    await pty.waitSettled();
    expect(pty.lines()[28]).toMatch(/Agent \[pi\]/);
    pty.press(KEYS.ctrlC);
    expect(await pty.waitExit()).toBe(0);
  });

  it('honours NO_COLOR', async () => {
    pty = openPty({ args: [], env: { ...t.env, NO_COLOR: '1' }, cols: 80, rows: 24 });
    await pty.waitFor('Sessions (');
    pty.press('2');
    await pty.waitFor(/\d+ sessions · /);
    // No foreground/background colour selections (30–37, 40–47, 90–97, 38;5) in what was drawn.
    expect(pty.raw).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|38;5;\d+)(?:;[0-9;]*)?m/);
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});
