// Human formatting shared by the screens and the CLI report, in the current
// language (i18n/index.ts: one per process, set before the first frame).
// Sizes keep the SI unit symbols in every language (Chinese terminal tools
// write "1.2 MB" too); dates stay ISO-like, which reads the same in both.

import { groupDigits, t } from '../i18n/index.js';
import { displayWidth } from './text.js';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** Decimal units, as du -h --si and the desktop original show them. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1000) return `${n} B`;
  let v = n;
  let u = 0;
  while (v >= 1000 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${UNITS[u]}`;
}

/** 12,345 — by hand: toLocaleString goes through Intl and costs ~0.5 ms a call on every repaint. */
export function formatCount(n: number): string {
  return groupDigits(n);
}

/** 2026-11-29 14:37 (UTC), compact and sortable. */
export function formatDate(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

export function isoOrNull(ms: number | null | undefined): string | null {
  if (ms == null || !Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** "3 min ago", "2 d ago" (3 分钟前, 2 天前) — for the deck. */
export function formatAgo(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return t('ago.now');
  const m = Math.round(s / 60);
  if (m < 60) return t('ago.minutes', { n: m });
  const h = Math.round(m / 60);
  if (h < 48) return t('ago.hours', { n: h });
  return t('ago.days', { n: Math.round(h / 24) });
}

/** Short relative age for table columns: 5m, 3h, 12d, 4mo, 2y (5分钟, 3小时, 12天, 4个月, 2年). */
export function formatAge(ms: number | null, now: number): string {
  if (ms == null) return '—';
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 3600) return t('age.minutes', { n: Math.max(1, Math.round(s / 60)) });
  if (s < 86400) return t('age.hours', { n: Math.round(s / 3600) });
  const d = s / 86400;
  if (d < 60) return t('age.days', { n: Math.round(d) });
  if (d < 730) return t('age.months', { n: Math.round(d / 30) });
  return t('age.years', { n: Math.round(d / 365) });
}

/**
 * English only: "1 item", "2 items". Kept for the callers the catalog has
 * not reached yet (cli, app, modals); new code uses t('count.…', { count }).
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * A path fitted to `width` columns: whole when it fits, else cut in the
 * middle ("/home/me/…/sessions/x.jsonl") so its start and its file name
 * stay readable; below 8 columns only the tail ("…x.jsonl").
 */
export function fitPath(p: string, width: number): string {
  if (displayWidth(p) <= width) return p;
  if (width <= 0) return '';
  if (width === 1) return '…';
  const chars = [...p];
  const tailOf = (room: number): string => {
    let out = '';
    let w = 0;
    for (let i = chars.length - 1; i >= 0; i--) {
      const cw = displayWidth(chars[i]!);
      if (w + cw > room) break;
      out = chars[i]! + out;
      w += cw;
    }
    return out;
  };
  if (width < 8) return '…' + tailOf(width - 1);
  const headRoom = Math.floor((width - 1) / 3);
  let head = '';
  let hw = 0;
  for (const ch of chars) {
    const cw = displayWidth(ch);
    if (hw + cw > headRoom) break;
    head += ch;
    hw += cw;
  }
  return head + '…' + tailOf(width - 1 - hw);
}
