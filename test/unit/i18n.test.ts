// The catalogs: complete in both languages, the same placeholders per key,
// the language chosen from --lang / Settings / the locale, and counts, sizes
// and ages written per language.

import { afterEach, describe, expect, it } from 'vitest';
import { formatAge, formatAgo, formatBytes, formatCount } from '../../src/engine/core/format.js';
import { en } from '../../src/engine/i18n/en.js';
import { CATALOGS, getLanguage, languageFromLocale, parseLanguage, placeholders, resolveLanguage, setLanguage, t } from '../../src/engine/i18n/index.js';
import { zh } from '../../src/engine/i18n/zh.js';
import { displayWidth } from '../../src/engine/core/text.js';
import { fitTabs } from '../../src/widgets/tab-bar.js';

afterEach(() => setLanguage('en'));

describe('catalog completeness', () => {
  it('every English key exists in Chinese and Chinese has no other key', () => {
    const enKeys = Object.keys(en).sort();
    const zhKeys = Object.keys(zh).sort();
    expect(zhKeys.filter((k) => !(k in en))).toEqual([]);
    expect(enKeys.filter((k) => !(k in zh))).toEqual([]);
    expect(enKeys.length).toBeGreaterThan(300);
  });

  it('each key uses the same placeholders in both languages', () => {
    const differ = Object.keys(en)
      .map((k) => ({ k, en: placeholders(en[k as keyof typeof en]), zh: placeholders(zh[k as keyof typeof zh]) }))
      .filter((x) => x.en.join() !== x.zh.join());
    expect(differ).toEqual([]);
  });

  it('no text is empty, and no Chinese entry is left as the English text', () => {
    const same: string[] = [];
    for (const [k, v] of Object.entries(zh)) {
      const texts = typeof v === 'string' ? [v] : [v.other, v.one ?? 'x'];
      for (const s of texts) expect(s.length, k).toBeGreaterThan(0);
      const e = en[k as keyof typeof en];
      if (JSON.stringify(e) === JSON.stringify(v)) same.push(k);
    }
    expect(same).toEqual([]);
  });

  it('Chinese has no plural forms: only `other`; a plural English key is plural in Chinese too', () => {
    for (const [k, v] of Object.entries(zh)) {
      if (typeof v !== 'string') expect(v.one, k).toBeUndefined();
      expect(typeof v === 'string', k).toBe(typeof en[k as keyof typeof en] === 'string');
    }
  });

  it('the Codex untitled fallback is 未命名会话', () => {
    expect(t('session.untitled', undefined, 'zh')).toBe('未命名会话');
    expect(t('session.untitled', undefined, 'en')).toBe('Untitled session');
  });
});

describe('t()', () => {
  it('fills placeholders, groups the digits of numbers, leaves agent text as it is', () => {
    expect(t('sessions.projectMarked', { count: 1234, project: '{bold}x' })).toBe('Marked 1,234 sessions in {bold}x.');
    expect(t('sessions.projectMarked', { count: 1234, project: '我的项目' }, 'zh')).toBe('已在 我的项目 中标记 1,234 个会话。');
  });

  it('English picks one/other by the count; Chinese always other', () => {
    expect(t('count.sessions', { count: 1 })).toBe('1 session');
    expect(t('count.sessions', { count: 0 })).toBe('0 sessions');
    expect(t('count.sessions', { count: 2 })).toBe('2 sessions');
    expect(t('count.sessions', { count: 1 }, 'zh')).toBe('1 个会话');
    expect(t('count.items', { count: 5 }, 'zh')).toBe('5 项');
    expect(t('backups.back', { what: '1 file', count: 1 })).toBe('1 file is back.');
    expect(t('backups.back', { what: '3 files', count: 3 })).toBe('3 files are back.');
  });

  it('uses the current language set at start-up', () => {
    expect(getLanguage()).toBe('en');
    setLanguage('zh');
    expect(t('tab.sessions')).toBe('会话');
    setLanguage('en');
    expect(t('tab.sessions')).toBe('Sessions');
  });
});

describe('resolveLanguage', () => {
  const env = (o: Record<string, string>) => o;
  it('--lang wins over everything', () => {
    expect(resolveLanguage({ flag: 'zh', env: env({ LANG: 'en_US.UTF-8' }), settings: 'en' })).toBe('zh');
    expect(resolveLanguage({ flag: 'en', env: env({ LC_ALL: 'zh_CN.UTF-8' }), settings: 'zh' })).toBe('en');
    expect(resolveLanguage({ flag: 'ZH', env: {} })).toBe('zh');
  });

  it('an explicit Settings choice beats the locale; auto follows it', () => {
    expect(resolveLanguage({ env: env({ LANG: 'zh_CN.UTF-8' }), settings: 'en' })).toBe('en');
    expect(resolveLanguage({ env: env({ LANG: 'C' }), settings: 'zh' })).toBe('zh');
    expect(resolveLanguage({ env: env({ LANG: 'zh_CN.UTF-8' }), settings: 'auto' })).toBe('zh');
  });

  it('reads LC_ALL, then LC_MESSAGES, then LANG; the first one set decides', () => {
    expect(resolveLanguage({ env: env({ LC_ALL: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' }) })).toBe('zh');
    expect(resolveLanguage({ env: env({ LC_ALL: 'C', LC_MESSAGES: 'zh_CN.UTF-8' }) })).toBe('en');
    expect(resolveLanguage({ env: env({ LC_ALL: '', LC_MESSAGES: 'zh_TW.Big5', LANG: 'en_US' }) })).toBe('zh');
    expect(resolveLanguage({ env: env({ LANG: 'zh' }) })).toBe('zh');
    expect(resolveLanguage({ env: env({ LANG: 'zh_CN' }) })).toBe('zh');
    expect(resolveLanguage({ env: env({ LANG: 'zh_HK.UTF-8@stroke' }) })).toBe('zh');
  });

  it('C, POSIX, en_* and anything else is English, as is no locale at all', () => {
    for (const v of ['C', 'POSIX', 'C.UTF-8', 'en_US.UTF-8', 'en_GB', 'de_DE.UTF-8', 'ja_JP.UTF-8', 'zhx', 'xzh_CN'])
      expect(resolveLanguage({ env: env({ LANG: v }) }), v).toBe('en');
    expect(resolveLanguage({ env: {} })).toBe('en');
    expect(languageFromLocale({})).toBeUndefined();
  });

  it('an unknown --lang value is not a language (the CLI reports the usage error)', () => {
    expect(parseLanguage('fr')).toBeUndefined();
    expect(parseLanguage('')).toBeUndefined();
    expect(resolveLanguage({ flag: 'fr', env: env({ LANG: 'zh_CN.UTF-8' }) })).toBe('zh');
  });
});

describe('formatting per language', () => {
  const now = Date.UTC(2026, 0, 10, 12, 0, 0);
  it('ages in English (unchanged) and Chinese', () => {
    expect(formatAgo(now - 5_000, now)).toBe('just now');
    expect(formatAgo(now - 3 * 60_000, now)).toBe('3 min ago');
    expect(formatAgo(now - 5 * 3600_000, now)).toBe('5 h ago');
    expect(formatAgo(now - 3 * 86400_000, now)).toBe('3 d ago');
    expect(formatAge(now - 5 * 60_000, now)).toBe('5m');
    expect(formatAge(now - 100 * 86400_000, now)).toBe('3mo');
    setLanguage('zh');
    expect(formatAgo(now - 5_000, now)).toBe('刚刚');
    expect(formatAgo(now - 3 * 60_000, now)).toBe('3 分钟前');
    expect(formatAgo(now - 5 * 3600_000, now)).toBe('5 小时前');
    expect(formatAgo(now - 3 * 86400_000, now)).toBe('3 天前');
    expect(formatAge(now - 5 * 60_000, now)).toBe('5分钟');
    expect(formatAge(now - 3 * 3600_000, now)).toBe('3小时');
    expect(formatAge(now - 12 * 86400_000, now)).toBe('12天');
    expect(formatAge(now - 100 * 86400_000, now)).toBe('3个月');
    expect(formatAge(now - 800 * 86400_000, now)).toBe('2年');
    expect(formatAge(null, now)).toBe('—');
  });

  it('the widest Chinese age fits the 8-column age column', () => {
    setLanguage('zh');
    let widest = 0;
    for (let d = 0; d < 4000; d += 0.25) widest = Math.max(widest, displayWidth(formatAge(now - d * 86400_000, now)));
    expect(widest).toBeLessThanOrEqual(7);
  });

  it('sizes and counts read the same in both (SI symbols, grouped digits)', () => {
    for (const lang of ['en', 'zh'] as const) {
      setLanguage(lang);
      expect(formatBytes(999)).toBe('999 B');
      expect(formatBytes(1_234_567)).toBe('1.2 MB');
      expect(formatCount(1_234_567)).toBe('1,234,567');
    }
  });
});

describe('tab labels fit by display width', () => {
  const zhTabs = ['tab.overview', 'tab.sessions', 'tab.memory', 'tab.logs', 'tab.backups', 'tab.settings'].map((k) => t(k as 'tab.overview', undefined, 'zh'));
  const cells = (names: string[]) => names.reduce((w, n, i) => w + displayWidth(` ${i + 1} ${n} `), 0);

  it('whole in both languages at 80 columns', () => {
    expect(fitTabs(zhTabs, 1, 80)).toEqual(zhTabs);
    const enTabs = zhTabs.map((_, i) =>
      t((['tab.overview', 'tab.sessions', 'tab.memory', 'tab.logs', 'tab.backups', 'tab.settings'] as const)[i]!, undefined, 'en'),
    );
    expect(fitTabs(enTabs, 0, 80)).toEqual(enTabs);
  });

  it('cut by columns, not characters, when the terminal is narrow', () => {
    for (const w of [60, 50, 40, 36]) {
      const out = fitTabs(zhTabs, 1, w);
      expect(cells(out), String(w)).toBeLessThanOrEqual(w + 1);
    }
    const out = fitTabs(zhTabs, 3, 50);
    expect(out.some((x) => x.endsWith('…'))).toBe(true);
  });

  it('every language has the same catalog object shape', () => {
    expect(Object.keys(CATALOGS).sort()).toEqual(['en', 'zh']);
  });
});
