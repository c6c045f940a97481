// The screen invariants hold in both languages: the tab badge in （）, the deck's
// 智能体, the review's required lines in Chinese, and a cut warning still caught.

import { expect, it } from 'vitest';
import { screenProblems } from '../helpers/screen-invariants.js';
it('the invariants read the English and the Chinese screen alike', () => {
  const mk = (lines: string[], tab: string) => ({ cols: 80, rows: lines.length, lines, wrapped: [], black: [], signature: '', currentTab: tab });
  const en = [' 1 Overview', ' x', ' Agent [pi]  Last scan', ' Sessions › Enter expand'];
  const zh = [' 1 概览', ' x', ' 智能体 [pi]  上次扫描', ' 会话 › Enter 展开'];
  expect(screenProblems(mk(en, ' 2 Sessions (12) '))).toEqual([]);
  expect(screenProblems(mk(zh, ' 2 会话（12） '))).toEqual([]);
  expect(screenProblems(mk([' 1', ' x', ' Agentx', ' 会话 › a'], ' 2 会话（12） ')).length).toBe(1);
  const review = [
    '┌─ 审阅清理 ───┐',
    '│ pi · 3 项 · 预计释放磁盘占用 1 KB │',
    '│ 备份：关 │',
    '│ ⚠ 不可撤销：没有备份，删除的数据无法找回。 │',
    '│ 输入 delete 并按 Enter 清理 · Esc 取消 │',
    '│ > _ │',
    '└──────┘',
    ' 智能体 [pi]',
    ' 审阅 › x',
  ];
  expect(screenProblems(mk(review, ' 2 会话（12） '))).toEqual([]);
  const r2 = [...review];
  r2[3] = '│ ⚠ 不可撤销：没有备份，删除的… │';
  expect(screenProblems(mk(r2, ' 2 会话（12） '))).toEqual(['the review does not show its irreversible warning']);
});
