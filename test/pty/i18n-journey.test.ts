// The whole app in each language, as a user meets it in tmux at 80×24 and
// 100×30: every tab, help, the review and a cleanup with its result. Each
// step waits for the app to settle and checks the screen invariants (no line
// too wide or wrapped, whole dialogs, the review's required lines, the
// footer naming the focus) — in Chinese too, where a character is two
// columns. Chinese comes from the locale; English from --lang under the same
// Chinese locale (the flag wins). Agent text (titles) is shown as it is.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { type Language, type MessageKey, t as catalog } from '../../src/engine/i18n/index.js';
import { KEYS, openTmux, requireTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let env: TempEnv;
let manifest: PiFixtureManifest;

beforeEach(() => {
  requireTmux();
  env = makeTempEnv();
  manifest = buildPiFixture({
    agentDir: env.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 4,
    forkRate: 0,
    config: true,
    cwdRoot: join(env.env.HOME!, 'src'),
  });
  targetAgent(env, 'pi');
});
afterEach(() => env.cleanup());

const CASES: [Language, number, number][] = [
  ['zh', 80, 24],
  ['zh', 100, 30],
  ['en', 80, 24],
  ['en', 100, 30],
];

describe.each(CASES)('journey in %s at %i×%i', (lang, cols, rows) => {
  it('every tab, help, review and a cleanup; the layout holds and the words are the language’s', async () => {
    const t = (key: MessageKey, params?: Record<string, string | number>): string => catalog(key, params, lang);
    const own = [env.env.CLEANERX_STATE_DIR!, env.env.CLEANERX_CONFIG_DIR!];
    const before = hashTree(env.env.HOME!, own);
    const args = lang === 'en' ? ['--lang', 'en'] : [];
    const s: TmuxScreen = openTmux({ args, env: { ...env.env, LC_ALL: undefined, LC_MESSAGES: undefined, LANG: 'zh_CN.UTF-8' }, cols, rows });
    const sessions = manifest.sessions.length;
    await s.waitFor(t('tab.sessionsCount', { count: String(sessions) }), 15000);
    let screen = await s.waitSettled();
    for (const key of ['tab.overview', 'tab.memory', 'tab.logs', 'tab.backups', 'tab.settings'] as const) expect(screen).toContain(t(key));
    expect(screen).toContain(t('deck.agent'));

    // Every tab, each settled and checked.
    for (const [n, marker] of [
      ['1', t('tab.overview')],
      ['3', t('tab.memory')],
      ['4', t('app.logsNotice').slice(0, 8)],
      ['5', t('tab.backups')],
      ['6', t('tab.settings')],
      ['2', t('tab.sessionsCount', { count: String(sessions) })],
    ] as const) {
      s.press(n);
      screen = await s.waitSettled();
      expect(screen, `tab ${n}`).toContain(marker);
    }

    // Help, in the language, closed with Esc.
    s.press('?');
    await s.waitFor(t('app.helpTitle'));
    screen = await s.waitSettled();
    expect(screen).toContain(t('app.helpFooter').slice(0, 10));
    s.press(KEYS.esc);
    await s.waitSettled();

    // Mark two sessions, review, confirm: the result dialog, in the language.
    await s.waitForLine(/^\[ \] {3}/);
    s.press('j', KEYS.space, KEYS.space);
    await s.waitFor(t('app.marks', { count: '2', size: '' }).trim());
    await s.waitSettled();
    s.press('x');
    await s.waitFor(t('rv.title'));
    screen = await s.waitSettled();
    expect(screen).toContain(t('rv.irreversibleRest').slice(0, 12));
    s.type('delete');
    await s.waitSettled();
    s.press(KEYS.enter);
    await s.waitFor(t('flow.completeTitle'), 20000);
    screen = await s.waitSettled();
    expect(screen).toContain(t('flow.removed', { items: t('count.items', { count: 2 }), bytes: '' }).slice(0, 6));
    expect(screen).toContain(t('flow.confirmed').slice(0, 12));
    s.press(KEYS.enter);
    await s.waitFor(t('tab.sessionsCount', { count: String(sessions - 2) }));
    await s.waitSettled();
    // The frame is all Chinese: the tab bar and the deck (the detail pane's engine labels are not yet; see the notes).
    if (lang === 'zh') {
      const lines = s.lines();
      expect([lines[0], ...lines.slice(-2)].join('\n')).not.toMatch(
        /\b(Sessions|Overview|Memory|Backups|Settings|Last scan|Agent|marked|expand|mark all|filter|rules|rescan|review|quit|help)\b/,
      );
    }
    s.press('q');
    expect(await s.waitExit()).toBe(0);

    // Exactly two session files went; every other byte is as it was.
    const diff = treeDiff(before, hashTree(env.env.HOME!, own)).filter((d) => !d.startsWith('added '));
    expect(diff, diff.join('\n')).toHaveLength(2);
    for (const d of diff) expect(d).toMatch(/^removed \.pi\/agent\/sessions\/--.*\.jsonl$/);
  });
});
