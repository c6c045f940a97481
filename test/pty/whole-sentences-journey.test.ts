// Issue #27 item 3, as a user meets it in real tmux at 80×24 (TERM
// tmux-256color), in English and in Chinese: the sentences that matter are
// whole on screen, wrapped and never cut with "…" — the review's backup
// sentence (Codex has no import route), what the agent loses, the command
// that reads a backup without cleanerx — and the status line drops whole
// fields (never "3 war…" or "6.…").

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Language, type MessageKey, t as catalog } from '../../src/engine/i18n/index.js';
import { KEYS, openTmux, requireTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let env: TempEnv;
let s: TmuxScreen;

beforeEach(() => {
  requireTmux();
  env = makeTempEnv();
});
afterEach(() => {
  s?.dispose();
  env.cleanup();
});

const squeeze = (x: string): string => x.replace(/\s+/g, '');

/** The text inside the box whose top border carries `title`, its lines joined (a wrapped sentence reads whole). */
function boxText(lines: string[], title: string): string {
  const top = lines.findIndex((l) => l.includes(`┌─ ${title} `));
  expect(top, `no box "${title}" on screen:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
  const left = [...lines[top]!].indexOf('┌');
  const out: string[] = [];
  // The box ends at its own corner (an item row's "└" is inside it).
  for (let r = top + 1; r < lines.length && [...lines[r]!][left] !== '└'; r++) {
    const l = lines[r]!;
    out.push(l.slice(l.indexOf('│') + 1, l.lastIndexOf('│')));
  }
  return out.join('\n');
}

/** The deck's first line: agent, status fields, marks. */
const statusLine = (lines: string[]): string => lines[lines.length - 2]!;

describe.each(['en', 'zh'] as Language[])('whole sentences in %s at 80×24', (lang) => {
  it(
    'review sentences, the backup command and the status line are whole',
    async () => {
      const t = (key: MessageKey, params?: Record<string, string | number>): string => catalog(key, params, lang);
      const args = lang === 'en' ? ['--demo', '--lang', 'en'] : ['--demo'];
      s = openTmux({
        args,
        env: { ...env.env, TMPDIR: env.root, LC_ALL: undefined, LC_MESSAGES: undefined, LANG: lang === 'zh' ? 'zh_CN.UTF-8' : 'C.UTF-8' },
        cols: 80,
        rows: 24,
      });
      await s.waitFor(`${t('deck.agent')} [pi]`, 40_000);
      await s.waitFor(t('app.deck.lastScan', { ago: '' }).trim(), 40_000);
      await s.waitSettled();

      // Mark one session: the marks take the right of the status line; the status keeps only whole fields.
      const quote = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const [pre, post] = t('app.marks', { count: '@@', size: '' }).split(' · ')[0]!.split('@@') as [string, string];
      // A marked project marks all its sessions: any count, whole.
      const marked = new RegExp(`${quote(pre)}[\\d,]+${quote(post)}`);
      for (let i = 0; i < 20 && !marked.test(s.text()); i++) {
        s.press('j', KEYS.space);
        await s.waitSettled();
      }
      let lines = s.lines();
      const status = statusLine(lines);
      expect(status).toMatch(marked);
      expect(status, status).not.toContain('…');
      // What is left of the status is whole fields: the warnings count and the marks' size whole, the scan's age goes first.
      expect(status).toContain(t('count.warnings', { count: 3 }));
      expect(status).toMatch(/ · [\d.,]+ (?:B|KB|MB|GB)\s*$/);
      if (lang === 'en') expect(status).not.toContain(t('app.deck.lastScan', { ago: '' }).trim());

      // pi's review: what pi loses, to its last word.
      s.press('x');
      await s.waitFor(t('rv.title'));
      lines = (await s.waitSettled()).split('\n');
      const review = boxText(lines, t('rv.title'));
      expect(squeeze(review)).toContain(squeeze(t('review.cost.loses', { agent: 'pi', what: t('cost.loss.session') })));
      expect(review).not.toMatch(/[^\s]…\s*$/m);
      s.press(KEYS.esc);
      await s.waitForNot(`┌─ ${t('rv.title')} `);
      await s.waitSettled();
      // pi's marks cleared: the review takes every agent's marks, and this one is Codex's alone.
      s.press('u');
      await s.waitForNot(marked);

      // Codex's review: the backup sentence (no import route) whole.
      s.press(']');
      await s.waitFor(`${t('deck.agent')} [Codex]`, 20_000);
      await s.waitFor(t('app.deck.lastScan', { ago: '' }).trim(), 40_000);
      await s.waitSettled();
      for (let i = 0; i < 20 && !marked.test(s.text()); i++) {
        s.press('j', KEYS.space);
        await s.waitSettled();
      }
      s.press('x');
      await s.waitFor(t('rv.title'));
      lines = (await s.waitSettled()).split('\n');
      const codex = boxText(lines, t('rv.title'));
      const sentence = `${t('rv.backup')} ${t('rv.backupNotOffered', { why: t('plan.noImport', { agent: 'Codex' }) })}`;
      expect(squeeze(codex)).toContain(squeeze(sentence));
      s.press(KEYS.esc);
      await s.waitForNot(`┌─ ${t('rv.title')} `);
      await s.waitSettled();

      // Backups: the command that reads an archive without cleanerx, whole on one line of its own.
      s.press('5');
      await s.waitFor(t('backups.readable'));
      lines = (await s.waitSettled()).split('\n');
      expect(
        lines.some((l) => l.includes(t('backups.readableCommand'))),
        lines.join('\n'),
      ).toBe(true);

      // Help: every row's sentence whole (wrapped under its text), no row cut.
      s.press('?');
      await s.waitFor(t('app.helpTitle'));
      lines = (await s.waitSettled()).split('\n');
      expect(boxText(lines, t('app.helpTitle'))).not.toMatch(/[^\s…]…\s*$/m);
      s.press(KEYS.esc);
      await s.waitSettled();
      s.press('q');
      expect(await s.waitExit(15_000)).toBe(0);
    },
    budget(240_000),
  );
});
