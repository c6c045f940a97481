// Codex adapter: override → CODEX_HOME → ~/.codex (databases under
// CODEX_SQLITE_HOME when set). Threads are listed by, and leave only through,
// Codex's own App Server (sessionRoute: thread/delete; no import, so every
// thread deletion is irreversible); global memory and old log rows are
// official items (itemRoute); caches and temporary entries are plain paths
// (fileRoute).

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/core/adapter.js';
import { attachSweep } from '../../engine/inventory/agent-sweep.js';
import { lstatOrNull } from '../../engine/host/fsx.js';
import { expandTilde, homeDirVar, resolveAgentHome } from '../shared/home.js';
import { appSupportRoot } from './paths.js';
import { codexResume } from './resume.js';

// The App Server client, SQLite readers and routes load on first use: a scan of another agent never pays for them.
const scanModule = () => import('./scan.js');

export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  displayName: 'Codex',
  memoryNotice: {
    en: 'Automatic memory of Codex. Instructions files (AGENTS.md, CLAUDE.md, rules) are protected and never shown here.',
    zh: 'Codex 的自动记忆。指令文件（AGENTS.md、CLAUDE.md、规则）受保护，不在此显示。',
  },
  homeEnvVar: 'CODEX_HOME',
  // Every codex start, --version included, makes $CODEX_HOME/tmp/arg0-linux/codex-arg0*/ and removes the last one (0.171).
  versionProbeHomeVar: 'CODEX_HOME',
  envVars: [homeDirVar('CODEX_HOME')],
  isolatedEnv: (home) => ({ CODEX_HOME: join(home, '.codex') }),
  labels: {
    // A thread started from the desktop app or an IDE extension; `source` metadata names the listing (App Server or state DB).
    sources: { vscode: 'Desktop / IDE' },
    metadata: { pinned: 'Pinned', requiresAgentExit: 'Needs exit', source: 'Recorded as' },
    // thread/archive and thread/unarchive move the thread's spawned subagent threads with it, and unarchive sets updatedAt to now (Codex 0.171).
    archive: { archive: true, unarchive: true, spawned: true, unarchiveTouches: true },
  },
  archiveRoute: { unarchive: true, setArchived: async (...a) => (await import('./archive-route.js')).setCodexArchived(...a) },
  binaryNames: ['codex'],
  extraBinDirs: (ctx) => (ctx.platform === 'darwin' ? ['/Applications/Codex.app/Contents/Resources', '/Applications/ChatGPT.app/Contents/Resources'] : []),
  resumeCommand: codexResume,
  // The demo's rollouts; the fixture builder loads only with --demo.
  demo: {
    build: async (env, now) => (await import('./fixture-demo.js')).buildCodexDemo(env, now),
    pinned: { pkg: '@openai/codex', bin: 'codex' },
  },
  resolveHome: (ctx) => resolveAgentHome(ctx, 'CODEX_HOME', ['.codex'], (v) => expandTilde(v, ctx)),
  async hasData(home) {
    if ((await lstatOrNull(join(home, 'sessions')))?.isDirectory()) return true;
    if ((await lstatOrNull(join(home, 'archived_sessions')))?.isDirectory()) return true;
    if ((await lstatOrNull(join(home, 'session_index.jsonl')))?.isFile()) return true;
    const names = await fsp.readdir(home).catch(() => [] as string[]);
    return names.some((n) => /^state_\d+\.sqlite$/.test(n));
  },
  cleanVersion: (raw) =>
    raw
      .trim()
      .split('\n')
      .filter((l) => !/^WARNING/.test(l))[0]
      ?.replace(/^codex-cli\s+/, '')
      .trim() ?? '',
  scan: async (inst, ctx, onProgress) => attachSweep(await (await scanModule()).scanCodex(inst, ctx, onProgress), (await import('./sweep.js')).CODEX_SWEEP),
  preview: async (inst, paths, id) => (await import('./preview.js')).previewCodex(inst, paths, id),
  explain: async (_inst, paths, id) => (await import('./explain.js')).explainCodex(paths, id),
  sessionRoute: { deleteSessions: async (inst, ctx, roots, opts) => (await import('./delete-route.js')).deleteCodexThreads(inst, ctx, roots, opts) },
  residue: { sessions: async (inst, ctx, targets) => (await import('./residue.js')).codexResidue(inst, ctx, targets) },
  itemRoute: { applyItems: async (inst, ctx, ids, opts) => (await import('./item-route.js')).applyCodexItems(inst, ctx, ids, opts) },
  fileRoute: {
    // The home, plus the desktop app's data root when one is recognized.
    roots: (inst, ctx) => {
      const app = appSupportRoot(ctx);
      return app ? [inst.home, app] : [inst.home];
    },
    writers: async (inst, ctx) => (await (await import('./writers.js')).findCodexWriters(ctx, inst.home)).writers,
  },
};
