// pi adapter: ~/.pi/agent (or PI_CODING_AGENT_DIR). File-based store; the
// executable is used for the version only.

import { join } from 'node:path';
import type { AgentAdapter, HostContext } from '../../engine/core/adapter.js';
import { lstatOrNull } from '../../engine/host/fsx.js';
import { expandTilde, homeDirVar, resolveAgentHome } from '../shared/home.js';
import { pendingPreview } from '../shared/pending.js';
import { piResume } from './resume.js';

// The scan, its reader, the preview and the writer check load on first use: a command about another agent never pays for them.

/** pi's npm packages: 0.x under @mariozechner, 1.x under @earendil-works. */
export const PI_PACKAGE = /^@(?:mariozechner|earendil-works)\/pi-coding-agent$/;

export const piAdapter: AgentAdapter = {
  kind: 'pi',
  displayName: 'pi',
  memoryNotice: {
    en: 'pi keeps no automatic memory; AGENTS.md, SYSTEM.md and APPEND_SYSTEM.md are protected instructions, not memory.',
    zh: 'pi 没有自动记忆；AGENTS.md、SYSTEM.md 和 APPEND_SYSTEM.md 是受保护的指令，不是记忆。',
  },
  homeEnvVar: 'PI_CODING_AGENT_DIR',
  envVars: [homeDirVar('PI_CODING_AGENT_DIR')],
  isolatedEnv: (home) => ({ PI_CODING_AGENT_DIR: join(home, '.pi', 'agent') }),
  labels: {
    // Every session's source is 'cli'; pi records pinned as false.
    sources: {},
    metadata: { pinned: 'Pinned', requiresAgentExit: 'Needs exit', source: 'Recorded as' },
  },
  binaryNames: ['pi'],
  extraBinDirs: () => [],
  resumeCommand: piResume,
  // The demo's store; the fixture builder loads only with --demo.
  demo: {
    build: async (env, now) => (await import('./fixture-demo.js')).buildPiDemo(env, now),
    pinned: { pkg: '@mariozechner/pi-coding-agent', bin: 'pi' },
  },
  resolveHome: (ctx: HostContext) => resolveAgentHome(ctx, 'PI_CODING_AGENT_DIR', ['.pi', 'agent'], (v) => expandTilde(v, ctx)),
  async hasData(home) {
    const st = await lstatOrNull(join(home, 'sessions'));
    if (st?.isDirectory()) return true;
    return Boolean((await lstatOrNull(join(home, 'auth.json')))?.isFile() || (await lstatOrNull(join(home, 'settings.json')))?.isFile());
  },
  cleanVersion: (raw) =>
    raw
      .trim()
      .split('\n')[0]!
      .replace(/^pi\s+/i, '')
      .trim(),
  // `pi --version` starts a Node process (over its 3 s limit on a loaded machine); npm's manifest says it for nothing.
  installedVersion: async (exe) => (await import('../shared/version-probe.js')).manifestVersion(exe, PI_PACKAGE),
  scan: async (inst, ctx, onProgress) => (await import('./scan.js')).scanPi(inst, ctx, onProgress),
  residue: { sessions: async (inst, _ctx, targets) => (await import('./residue.js')).piResidue(inst, targets) },
  fileRoute: {
    roots: (inst) => [inst.home],
    writers: async (inst, ctx) => (await import('./writers.js')).findPiWriters(ctx, inst.home),
  },
  async preview(_inst, paths, itemId) {
    if (!itemId.startsWith('session:')) return pendingPreview(itemId);
    // A link row is never followed, not even for a preview: the notice says why.
    if ((await lstatOrNull(paths[0]!))?.isSymbolicLink())
      return {
        id: itemId,
        source: 'piSession.readOnly',
        truncated: false,
        bytesRead: 0,
        blocks: [{ kind: 'notice', text: (await import('./scan.js')).PI_LINK_REASON }],
      };
    return (await import('./preview.js')).previewPiSession(itemId, paths[0]!);
  },
  explain: async (_inst, paths, itemId) => (await import('./explain.js')).explainPi(paths, itemId),
};
