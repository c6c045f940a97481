// OpenCode adapter: XDG_DATA_HOME/opencode or ~/.local/share/opencode.
// Detection for now; the read-only DB inventory arrives with its issue.

import { promises as fsp } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { AgentAdapter } from '../../engine/adapter.js';
import { lstatOrNull } from '../../engine/fsx.js';
import { homeOf } from '../../engine/own-dirs.js';
import { pendingInventory, pendingPreview } from '../pending.js';

export const opencodeAdapter: AgentAdapter = {
  kind: 'opencode',
  homeEnvVar: 'XDG_DATA_HOME',
  binaryNames: ['opencode'],
  extraBinDirs: (ctx) => [join(homeOf(ctx.env), '.opencode', 'bin')],
  resolveHome: (ctx) => {
    const x = ctx.env.XDG_DATA_HOME;
    if (x && isAbsolute(x)) return { home: join(x, 'opencode'), source: 'env' };
    return { home: join(homeOf(ctx.env), '.local', 'share', 'opencode'), source: 'default' };
  },
  async hasData(home) {
    if ((await lstatOrNull(join(home, 'storage')))?.isDirectory()) return true;
    const names = await fsp.readdir(home).catch(() => [] as string[]);
    return names.some((n) => /^opencode(-[A-Za-z0-9_.-]+)?\.db$/.test(n));
  },
  cleanVersion: (raw) => raw.trim().split('\n')[0]!.trim(),
  scan: async (inst) => pendingInventory('opencode', inst.home),
  preview: async (_inst, _paths, id) => pendingPreview(id),
};
