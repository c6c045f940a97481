// Codex adapter: CODEX_HOME or ~/.codex. Detection for now; the App Server
// inventory arrives with the Codex adapter issue.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/adapter.js';
import { lstatOrNull } from '../../engine/fsx.js';
import { expandTilde, resolveAgentHome } from '../home.js';
import { pendingInventory, pendingPreview } from '../pending.js';

export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  homeEnvVar: 'CODEX_HOME',
  binaryNames: ['codex'],
  extraBinDirs: (ctx) =>
    ctx.platform === 'darwin' ? ['/Applications/Codex.app/Contents/Resources', '/Applications/ChatGPT.app/Contents/Resources'] : [],
  resolveHome: (ctx) => resolveAgentHome(ctx, 'CODEX_HOME', ['.codex'], (v) => expandTilde(v, ctx)),
  async hasData(home) {
    if ((await lstatOrNull(join(home, 'sessions')))?.isDirectory()) return true;
    if ((await lstatOrNull(join(home, 'session_index.jsonl')))?.isFile()) return true;
    const names = await fsp.readdir(home).catch(() => [] as string[]);
    return names.some((n) => /^state_\d+\.sqlite$/.test(n));
  },
  cleanVersion: (raw) => raw.trim().split('\n')[0]!.replace(/^codex-cli\s+/, '').trim(),
  scan: async (inst) => pendingInventory('codex', inst.home),
  preview: async (_inst, _paths, id) => pendingPreview(id),
};
