// Claude Code adapter: CLAUDE_CONFIG_DIR or ~/.claude. Detection for now;
// the inventory arrives with the Claude Code adapter issue.

import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/adapter.js';
import { lstatOrNull } from '../../engine/fsx.js';
import { expandTilde, resolveAgentHome } from '../home.js';
import { pendingInventory, pendingPreview } from '../pending.js';

export const claudeAdapter: AgentAdapter = {
  kind: 'claude',
  homeEnvVar: 'CLAUDE_CONFIG_DIR',
  binaryNames: ['claude'],
  extraBinDirs: (ctx) => [join(ctx.env.HOME ?? '/nonexistent', '.claude', 'local')],
  resolveHome: (ctx) => resolveAgentHome(ctx, 'CLAUDE_CONFIG_DIR', ['.claude'], (v) => expandTilde(v, ctx)),
  async hasData(home) {
    return Boolean((await lstatOrNull(join(home, 'projects')))?.isDirectory() || (await lstatOrNull(join(home, 'history.jsonl')))?.isFile());
  },
  cleanVersion: (raw) => raw.trim().split('\n')[0]!.replace(/\s*\(Claude Code\)\s*$/, '').trim(),
  scan: async (inst) => pendingInventory('claude', inst.home),
  preview: async (_inst, _paths, id) => pendingPreview(id),
};
