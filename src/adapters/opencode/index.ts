// OpenCode adapter: XDG_DATA_HOME/opencode or ~/.local/share/opencode, one
// SQLite database read strictly read-only. Sessions are rows and leave only
// through OpenCode's own routes (sessionRoute); logs and the cache root are
// plain directories.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/core/adapter.js';
import { attachSweep } from '../../engine/inventory/agent-sweep.js';
import { lstatOrNull } from '../../engine/host/fsx.js';
import { homeOf } from '../../engine/host/own-dirs.js';
import { pendingPreview } from '../shared/pending.js';
import { CHANNEL_DB, chooseDatabase, DB_NAME, opencodeMutationRoots, resolveOpencodeHome } from './paths.js';
import { OPENCODE_SWEEP } from './sweep.js';
import { OPENCODE_DB_VAR } from './env.js';
import { opencodeResume } from './resume.js';

// The SQLite reader, server probe and routes load on first use: a scan of another agent never pays for them.
const routes = () => import('./backup-route.js');
const reclaim = () => import('./compact-item-route.js');

/** OpenCode's npm packages: the launcher and the platform binaries (opencode-linux-x64, opencode-darwin-arm64, …-baseline, …-musl). */
export const OPENCODE_PACKAGE = /^opencode-(?:ai|(?:linux|darwin|windows)-(?:x64|arm64)(?:-baseline)?(?:-musl)?)$/;

export const opencodeAdapter: AgentAdapter = {
  kind: 'opencode',
  displayName: 'OpenCode',
  memoryNotice: {
    en: 'Automatic memory of OpenCode. Instructions files (AGENTS.md, CLAUDE.md, rules) are protected and never shown here.',
    zh: 'OpenCode 的自动记忆。指令文件（AGENTS.md、CLAUDE.md、规则）受保护，不在此显示。',
  },
  homeEnvVar: 'XDG_DATA_HOME',
  envVars: [OPENCODE_DB_VAR],
  isolatedEnv: (home) => ({ OPENCODE_DB: join(home, '.local', 'share', 'opencode', DB_NAME) }),
  labels: {
    // Every session's source is 'cli'; OpenCode records pinned as false.
    sources: {},
    metadata: { pinned: 'Pinned', requiresAgentExit: 'Needs exit', source: 'Recorded as' },
    archive: {
      archive: true,
      unarchive: false,
      why: 'OpenCode 1.18 has no official unarchive (its server keeps a session archived), so cleanerx cannot offer one.',
    },
    losses: { session: "OpenCode's undo of the file changes made in it", archivedSession: "OpenCode's undo of the file changes made in it" },
  },
  archiveRoute: { unarchive: false, setArchived: async (...a) => (await import('./archive-route.js')).setOpencodeArchived(...a) },
  binaryNames: ['opencode'],
  extraBinDirs: (ctx) => [join(homeOf(ctx.env), '.opencode', 'bin')],
  resumeCommand: opencodeResume,
  // The demo's minimal store; the fixture builder loads only with --demo.
  demo: { build: async (env) => (await import('./fixture-demo.js')).buildOpencodeDemo(env) },
  resolveHome: resolveOpencodeHome,
  async hasData(home) {
    if ((await lstatOrNull(join(home, 'storage')))?.isDirectory()) return true;
    const names = await fsp.readdir(home).catch(() => [] as string[]);
    return names.some((n) => n === DB_NAME || CHANNEL_DB.test(n));
  },
  cleanVersion: (raw) => raw.trim().split('\n')[0]!.trim(),
  // `opencode --version` costs ~0.7 s CPU and 1–3 s wall (over the 3 s limit on a loaded machine); npm's manifest says it for nothing.
  installedVersion: async (exe) => (await import('../shared/version-probe.js')).manifestVersion(exe, OPENCODE_PACKAGE),
  scan: async (inst, ctx, onProgress) =>
    attachSweep(await (await reclaim()).addReclaimItems(inst, ctx, await (await import('./scan.js')).scanOpencode(inst, ctx, onProgress)), OPENCODE_SWEEP),
  // Snapshot git gc and the database compaction: cleanerx's own calls, after the session deletes.
  itemRoute: { applyItems: async (inst, ctx, ids, opts) => (await reclaim()).applyOpencodeItems(inst, ctx, ids, opts) },
  // Logs and the cache root: plain directories, removed only while no OpenCode process of this store runs (writer-evidence.ts).
  fileRoute: {
    roots: opencodeMutationRoots,
    writers: async (inst, ctx) => (await import('./writers.js')).findOpencodeWriters(ctx, chooseDatabase(inst, ctx).db, inst.home),
  },
  residue: { sessions: async (inst, ctx, targets) => (await import('./residue.js')).opencodeResidue(inst, ctx, targets) },
  sessionRoute: {
    deleteSessions: async (inst, ctx, roots, opts) => (await import('./delete-route.js')).deleteOpencodeSessions(inst, ctx, roots, opts),
    exportSessions: async (inst, ctx, roots, dir, opts) => (await routes()).exportOpencodeSessions(inst, ctx, roots, dir, opts),
    importSessions: async (inst, ctx, exports, opts) => (await routes()).importOpencodeSessions(inst, ctx, exports, opts),
  },
  async preview(inst, paths, itemId) {
    const { previewOpencodeLogs, previewOpencodeSession, previewOpencodeTables } = await import('./preview.js');
    if (itemId.startsWith('session:'))
      return previewOpencodeSession(itemId, itemId.slice('session:'.length), (await import('./scan.js')).scannedDatabase.get(inst.home));
    if (itemId === 'logs:opencode' && paths[0]) return previewOpencodeLogs(itemId, paths[0]);
    // The compaction and the database's own row: where its bytes go, table by table.
    if (itemId === 'compact:opencode-db' || /^protected:opencode:db:[^/]+\.db$/.test(itemId))
      return previewOpencodeTables(itemId, (await import('./scan.js')).scannedDatabase.get(inst.home));
    return pendingPreview(itemId);
  },
  async explain(inst, paths, itemId) {
    const db = (await import('./scan.js')).scannedDatabase.get(inst.home);
    return (await import('./explain.js')).explainOpencode(paths, itemId, itemId.slice('session:'.length), db);
  },
};
