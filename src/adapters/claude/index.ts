// Claude Code adapter: CLAUDE_CONFIG_DIR or ~/.claude. File routes only;
// `claude purge` is never invoked (its project-wide scope takes memory,
// history and config with it).

import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/core/adapter.js';
import { lstatOrNull } from '../../engine/host/fsx.js';
import { expandTilde, homeDirVar, resolveAgentHome } from '../shared/home.js';
import { pendingPreview } from '../shared/pending.js';
import { claudeTempRoots } from './temp-roots.js';
import { claudeResume } from './resume.js';

// The scan, its readers, the sweep, the previews and the writer check load on first use: a command about another agent never pays for them.

export const claudeAdapter: AgentAdapter = {
  kind: 'claude',
  displayName: 'Claude Code',
  memoryNotice: {
    en: 'Automatic memory of Claude Code. Instructions files (AGENTS.md, CLAUDE.md, rules) are protected and never shown here.',
    zh: 'Claude Code 的自动记忆。指令文件（AGENTS.md、CLAUDE.md、规则）受保护，不在此显示。',
  },
  homeEnvVar: 'CLAUDE_CONFIG_DIR',
  envVars: [homeDirVar('CLAUDE_CONFIG_DIR')],
  // Its temp roots too: a test's or the demo's Claude never writes, and cleanerx never reads, the real temp dir.
  isolatedEnv: (home) => ({ CLAUDE_CONFIG_DIR: join(home, '.claude'), CLAUDE_CODE_TMPDIR: join(home, 'claude-tmp') }),
  labels: {
    noOrphans:
      "Claude Code keeps a session's subagents inside that session's own folder, so no session outlives its parent and --orphans matches nothing; data left by deleted sessions is listed as its own items.",
    // The source is Claude's entrypoint (cli, sdk-ts, claude-vscode…), shown as it is; Claude records pinned as false.
    sources: {},
    metadata: { pinned: 'Pinned', requiresAgentExit: 'Needs exit', source: 'Recorded as' },
    archive: { archive: true, unarchive: true },
  },
  archiveRoute: { unarchive: true, setArchived: async (...a) => (await import('./archive-route.js')).setClaudeArchived(...a) },
  binaryNames: ['claude'],
  extraBinDirs: (ctx) => [join(ctx.env.HOME ?? '/nonexistent', '.claude', 'local')],
  resumeCommand: claudeResume,
  // The demo's config dir and temp root; the fixture builder loads only with --demo.
  demo: { build: async (env, now) => (await import('./fixture-demo.js')).buildClaudeDemo(env, now) },
  resolveHome: (ctx) => resolveAgentHome(ctx, 'CLAUDE_CONFIG_DIR', ['.claude'], (v) => expandTilde(v, ctx)),
  async hasData(home) {
    return Boolean((await lstatOrNull(join(home, 'projects')))?.isDirectory() || (await lstatOrNull(join(home, 'history.jsonl')))?.isFile());
  },
  cleanVersion: (raw) =>
    raw
      .trim()
      .split('\n')[0]!
      .replace(/\s*\(Claude Code\)\s*$/, '')
      .trim(),
  scan: async (inst, ctx, report) => {
    const [{ scanClaude }, { withClaudeSweep }] = await Promise.all([import('./scan.js'), import('./sweep.js')]);
    // Project settings are those of the folder cleanerx runs in (PWD): where the user is likely to start Claude.
    const managedDir = ctx.env.CLEANERX_CLAUDE_MANAGED_DIR ?? (ctx.platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code');
    return withClaudeSweep(await scanClaude(inst, ctx, report), inst.home, { cwd: ctx.env.PWD ?? null, managedDir });
  },
  residue: { sessions: async (inst, ctx, targets) => (await import('./residue.js')).claudeResidue(inst, ctx, targets) },
  fileRoute: {
    // The temp roots are removal roots only while they are the user's real directories (temp-roots.ts lists them so).
    roots: (inst, ctx) => [inst.home, ...claudeTempRoots(ctx, [])],
    writers: async (inst, ctx) => (await (await import('./writers.js')).findClaudeWriters(ctx, inst.home, [])).writers,
  },
  async preview(_inst, paths, itemId) {
    if (itemId.startsWith('session:')) return (await import('./preview.js')).previewTranscript(itemId, paths[0]!);
    if (itemId.startsWith('memory:')) return (await import('./preview.js')).previewMemory(itemId, paths[0]!);
    return pendingPreview(itemId);
  },
  explain: async (_inst, paths, itemId) => (await import('./explain.js')).explainClaude(paths, itemId),
};
