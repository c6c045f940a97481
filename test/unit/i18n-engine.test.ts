// The engine's own sentences (the detail pane, a plan's notes, blockers and
// backup reason, what removing costs, the passphrase rule) speak the user's
// language; agent text (titles, paths) is never translated, English stays as
// it was, and a plan file's notes stay English in any language.

import { afterEach, describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { setLanguage } from '../../src/engine/i18n/index.js';
import type { Detail, Item } from '../../src/engine/core/model.js';
import { passphraseProblem } from '../../src/engine/core/passphrase-rule.js';
import { inventory, session, snapshotOf } from '../helpers/sessions.js';

const cache: Item = {
  id: 'cache:x',
  category: 'cache',
  label: 'x cache',
  paths: ['/fake/cache/x'],
  bytes: 10,
  risk: 'safe',
  recoverable: false,
  selectable: true,
  metadata: {},
};
const snap = () => snapshotOf(inventory([session('a', { title: 'Fix the build' })], [], [cache]));
const headings = (d: Detail): string[] => d.sections.map((s) => s.heading);
const field = (d: Detail, label: string): string | undefined => d.sections.flatMap((s) => s.fields).find((f) => f.label === label)?.value;

afterEach(() => setLanguage('en'));

describe('engine sentences in Chinese', () => {
  it('a session detail has Chinese headings, labels and values; the title stays as the agent wrote it', () => {
    setLanguage('zh');
    const d = snap().detail('session:a');
    expect(d.title).toBe('Fix the build');
    expect(headings(d)).toEqual(['概况', '会话', '如果删除']);
    expect(field(d, '可恢复')).toBe('是（可备份）');
    expect(field(d, '状态')).toBe('未加载');
    expect(field(d, '随之删除')).toBe('没有其他（分支会保留）');
    expect(field(d, '智能体失去')).toBe('此会话的历史记录，以及继续该会话的能力');
    expect(field(d, '归档 (A)')).toBe('不可用：该智能体没有官方归档途径');
    expect(JSON.stringify(d.sections)).not.toMatch(/Recoverable|Facts|If removed|backup-able/);
  });

  it('an item detail names its category and risk in Chinese', () => {
    setLanguage('zh');
    const d = snap().detail('cache:x');
    expect(field(d, '类别')).toBe('缓存');
    expect(field(d, '可重新生成')).toBe('是，智能体会重新生成');
    expect(field(d, '智能体失去')).toBe('没有无法重建的内容');
  });

  it('a plan says its blockers, route notes and why no backup in Chinese', () => {
    setLanguage('zh');
    const plan = buildPlan(snap(), ['session:a', 'cache:x'], { readOnly: true, routeAvailable: false, officialSessions: true });
    expect(plan.blockers).toEqual(['只读模式：不提供清理途径。', '此版本的 cleanerx 尚不支持清理 pi 的数据。']);
    expect(plan.routeNotes).toEqual(['会话通过 pi 自己的删除途径删除（1 个根会话；其下层会话一并删除）。']);
    // A mixed plan backs up what can be restored and names what it leaves out.
    expect(plan.backupWhyNot).toBeUndefined();
    expect(plan.backupNotCovered).toBe('备份不包含 1 项无法恢复的条目（缓存、临时数据、由代理自身调用处理的条目）。');
    expect(buildPlan(snap(), ['cache:x'], { readOnly: false, routeAvailable: true }).backupWhyNot).toBe(
      '此计划中没有可从备份恢复的条目（缓存、临时数据或没有恢复途径的条目）。',
    );
    const archive = buildPlan(snap(), ['session:a'], { readOnly: false, routeAvailable: true, action: 'archive' });
    expect(archive.blockers).toEqual(['pi 在此版本中没有官方归档途径。']);
    expect(archive.backupWhyNot).toBe('归档不删除任何数据（会话仍在磁盘上）：无需备份。');
  });

  it('a plan asked for in English (the plan file) stays English under a Chinese UI', () => {
    setLanguage('zh');
    const plan = buildPlan(snap(), ['session:a'], { readOnly: false, routeAvailable: true, officialSessions: true, lang: 'en' });
    expect(plan.routeNotes).toEqual(["Sessions are deleted by pi's own delete route (1 root; their descendant sessions go with them)."]);
  });

  it('the passphrase rule speaks Chinese', () => {
    setLanguage('zh');
    expect(passphraseProblem('short')).toBe('请选择至少 8 个字符的口令（首尾空格不计）。');
  });
});

describe('engine sentences in English are unchanged', () => {
  it('session detail, plan notes and blockers', () => {
    const d = snap().detail('session:a');
    expect(headings(d)).toEqual(['Facts', 'Session', 'If removed']);
    expect(field(d, 'Recoverable')).toBe('yes (backup-able)');
    expect(field(d, 'Agent loses')).toBe('the history of this session and resuming it');
    const plan = buildPlan(snap(), ['session:a', 'cache:x'], { readOnly: true, routeAvailable: false, officialSessions: true });
    expect(plan.blockers).toEqual(['Read-only mode: no cleanup route is offered.', 'Cleanup of pi data is not available in this version of cleanerx.']);
    expect(plan.backupNotCovered).toBe("The backup leaves out 1 item nothing could restore (caches, temporary data, items changed by the agent's own call).");
    expect(buildPlan(snap(), ['cache:x'], { readOnly: false, routeAvailable: true }).backupWhyNot).toBe(
      'Nothing in this plan could be restored from a backup (caches, temporary data, items without a restore route).',
    );
    expect(passphraseProblem('short')).toBe('Choose a passphrase of at least 8 characters, not counting spaces at its start and end.');
  });
});
