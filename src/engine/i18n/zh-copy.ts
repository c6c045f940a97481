// 复制（c、y）及其对话框，以及 --no-color：与 en-copy.ts 一一对应。

import type { enCopy } from './en-copy.js';

export const zhCopy: Record<keyof typeof enCopy, string> = {
  'copy.resumeKey': '复制智能体自己恢复此会话的命令',
  'copy.referenceKey': '复制会话的 ID 和文件',
  'copy.footer': '复制',
  'copy.onSession': '复制只对会话行有效：请先移到一个会话上。',
  'copy.titleResume': '已复制：恢复命令',
  'copy.titleReference': '已复制：ID 和文件',
  'copy.none': '{agent} 没有恢复此会话的命令。',
  'copy.unsafe': '未复制：它的目录、ID 或文件含有控制字符或不可见字符，粘贴的命令可能执行别的东西。',
  'copy.noReference': '未复制：它的 ID 或文件含有控制字符或不可见字符。',
  'copy.sentTmux': '已通过 tmux 发送（OSC 52）。在 ~/.tmux.conf 中设置 `set -g set-clipboard on` 后，它会进入 tmux 的缓冲区（前缀键 ]）和终端的剪贴板。',
  'copy.sentScreen': '已通过 GNU screen 发送到终端（OSC 52）。',
  'copy.sentTerminal': '已发送到终端的剪贴板（OSC 52）。',
  'copy.tooLarge': '太长，终端剪贴板请求放不下：请选中上面的文字。',
  'copy.selectIfRefused': '拒绝 OSC 52 的终端不会改动剪贴板：请选中上面的文字。',
  'copy.status': '已复制{what}。',
  'copy.whatResume': '恢复命令',
  'copy.whatReference': 'ID 和文件',
  'cli.help.color': '程序中的颜色；--no-color（或设置了 NO_COLOR）时只用粗体、反显和文字',
};
