// The detail pane on a real blessed screen: a blocker's whole reason (the
// writer's pid and command line) wrapped, never cut; previews named in words;
// field values wrapped at spaces.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Detail, Preview } from '../../src/engine/core/model.js';
import { displayWidth } from '../../src/engine/core/text.js';
import { DetailPane, wrapWords } from '../../src/widgets/detail-pane.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function pane(width: number, height = 40): DetailPane {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: width, rows: height });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return new DetailPane(screen, makeTheme({ NO_COLOR: '1' }), { top: 0, left: 0, width, height });
}

/** What the pane shows, tags removed, one string per line. */
function shown(p: DetailPane): string[] {
  return p.box
    .getContent()
    .split('\n')
    .map((l) => l.replace(/\{\/?[a-z-]+\}/g, '').replace(/\x03/g, ''));
}

const detail = (over: Partial<Detail> = {}): Detail => ({
  id: 'session:abc',
  kind: 'session',
  title: 'Fix the parser',
  sections: [{ heading: 'Facts', fields: [{ label: 'Working dir', value: 'the directory where this long-running session was started by the user' }] }],
  paths: ['/home/me/.pi/agent/sessions/--home-me-src-project--/2026-11-29T12-00-00_abc.jsonl'],
  selectable: false,
  ...over,
});

describe('detail pane', () => {
  it('shows a blocker reason whole, wrapped: the writer pid and command line', () => {
    const reason =
      'pi is running (pid 48213: node /usr/lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js --session 2026-11-29T12-00-00_abc): its data is read-only until it exits.';
    const p = pane(40);
    p.show(detail({ blockedReason: reason }), false, null);
    const lines = shown(p);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(39);
    const start = lines.findIndex((l) => l.startsWith('Blocked:'));
    expect(start).toBeGreaterThanOrEqual(0);
    // Right below the title, before the facts: visible without scrolling.
    expect(start).toBe(1);
    const end = lines.findIndex((l, i) => i > start && l.includes('Facts'));
    const text = lines.slice(start, end).join(' ').replace(/\s+/g, ' ');
    expect(text.replace(/ /g, '')).toContain(`Blocked:${reason}`.replace(/ /g, ''));
    expect(text).toContain('pid 48213');
    expect(text).not.toContain('…');
  });

  it('names the preview source in words, not the engine id', () => {
    const preview: Preview = { id: 'session:abc', source: 'piSession.readOnly', truncated: false, bytesRead: 10, blocks: [{ kind: 'notice', text: 'hello' }] };
    const p = pane(60);
    p.show(detail(), false, preview);
    const text = shown(p).join('\n');
    expect(text).toContain('Preview · the pi session file, read-only');
    expect(text).not.toMatch(/readOnly|piSession/);
  });

  it('wraps field values at spaces', () => {
    const p = pane(40);
    p.show(detail(), false, null);
    const lines = shown(p);
    const dir = lines.filter((l, i) => i > 0 && (l.startsWith('Working dir') || (l.startsWith(' '.repeat(14)) && !l.trim().startsWith('/'))));
    for (const l of dir) expect(l.trimEnd().endsWith('-')).toBe(false);
    expect(dir.map((l) => l.slice(14).trim()).join(' ')).toBe('the directory where this long-running session was started by the user');
  });

  it('shows each path on one line, never split: whole when it fits, else its start and its file name around …/', () => {
    const p = pane(40);
    const short = '/home/me/.pi/agent/settings.json';
    p.show(detail({ paths: [...detail().paths, short] }), false, null);
    const lines = shown(p);
    const at = lines.findIndex((l) => l.includes('Paths'));
    expect(lines[at + 1]).toBe('/home/me…/2026-11-29T12-00-00_abc.jsonl');
    expect(displayWidth(lines[at + 1]!)).toBeLessThanOrEqual(39);
    expect(lines[at + 2]).toBe(short);
    // Where the whole path is, said once, because one was shortened.
    expect(lines.slice(at + 3).join(' ')).toContain('scan --json');
  });
});

describe('wrapWords', () => {
  it('never breaks a word that fits on a line, and breaks a longer one by width', () => {
    expect(wrapWords('the quick brown fox', 9)).toEqual(['the quick', 'brown fox']);
    expect(wrapWords('see /a/very/long/path/x.jsonl now', 10)).toEqual(['see', '/a/very/lo', 'ng/path/x.', 'jsonl now']);
    expect(wrapWords('', 5)).toEqual(['']);
    for (const l of wrapWords('重构数据库 迁移脚本 🚀🚀🚀 x', 6)) expect(displayWidth(l)).toBeLessThanOrEqual(6);
  });
});

describe('detail pane labels', () => {
  it('keeps a space between every label and its value, in both languages', () => {
    const fields = [
      { label: 'Deleted with it', value: 'nothing else (forks are kept)' },
      { label: 'Agent stopped', value: 'needed' },
      { label: '停止智能体后才能删除', value: '需要' },
    ];
    for (const width of [40, 60, 80]) {
      const p = pane(width);
      p.show(detail({ sections: [{ heading: 'If removed', fields }] }), false, null);
      const lines = shown(p);
      for (const f of fields) {
        const line = lines.find((l) => l.startsWith(f.label));
        expect({ width, line }).toEqual({ width, line: expect.stringMatching(new RegExp(`^${f.label} +${f.value.split(' ')[0]!.replace(/[()]/g, '\\$&')}`)) });
      }
      // Values line up in one column (a label wider than half the pane pushes its own value right).
      if (width < 60) continue;
      const starts = fields.map((f) =>
        displayWidth(lines.find((l) => l.startsWith(f.label))!.slice(0, lines.find((l) => l.startsWith(f.label))!.indexOf(f.value.split(' ')[0]!))),
      );
      expect(new Set(starts).size, String(starts)).toBe(1);
    }
  });
});
