// 引擎自己说的话（界面和命令行显示的错误与警告）：与 en-engine.ts 一一对应。

import type { Plural } from './en.js';
import type { enEngine } from './en-engine.js';

export const zhEngine: Record<keyof typeof enEngine, string | Plural> = {
  'lock.link': '清理锁 {path} 是符号链接；请删除后重试。',
  'lock.unreadable': '无法读取清理锁 {path}（{code}）；请检查其权限后重试。',
  'lock.notRegular': '清理锁 {path} 不是普通文件；请删除后重试。',
  'lock.cannotCreate': '无法创建清理锁 {path}（{code}）；请检查 {dir} 后重试。',
  'lock.running': '另一个 {agent} 清理正在运行（pid {pid}，开始于 {started}，命令：{command}）；请等它结束后重试。',
  'lock.starting': '另一个 {agent} 清理正在启动（锁 {path}）；请稍候再试。',
  'lock.changing': '{agent} 的清理锁不断变化（{path}）；请重试。',
  'dirs.relative': '{name} 是相对路径（"{value}"）；请设为绝对路径或取消设置。',
  'dirs.relativeDb': 'OPENCODE_DB 是相对路径（"{value}"）；请设为绝对路径、OpenCode 数据目录中的文件名，或取消设置。',
  'settings.file.link': '{path} 是符号链接（不跟随）；使用默认设置。',
  'settings.file.notRegular': '{path} 不是普通文件；使用默认设置。',
  'settings.file.tooLarge': '{path} 太大；使用默认设置。',
  'settings.file.unreadable': '{path} 无法读取；使用默认设置。',
  'settings.file.invalid': '{path} 无效（{reason}）；保存之前使用默认设置。',
};
