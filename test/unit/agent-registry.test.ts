// The one registry of agents (src/adapters/registry.ts) and everything that
// must agree with it: the agents engine/core knows (engine/core/agents.ts),
// the descriptors' texts in both languages, the demo's data, the isolated env,
// and detection's order and names.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { isolatedEnv } from '../../src/demo/demo-home.js';
import { Engine } from '../../src/engine/api/engine.js';
import { agentKinds, agentName, isAgentKind } from '../../src/engine/core/agents.js';
import type { AgentKind } from '../../src/engine/core/model.js';
import { detectOne } from '../../src/engine/host/detect.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { inventory, NOW, session } from '../helpers/sessions.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { ROOT } from '../helpers/constants.js';

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

let t: TempEnv | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('the agent registry', () => {
  it('installs its agents in engine/core, in the same order, each once', () => {
    expect(agentKinds()).toEqual(ADAPTERS.map((a) => a.kind));
    expect(new Set(ADAPTERS.map((a) => a.kind)).size).toBe(ADAPTERS.length);
    for (const a of ADAPTERS) expect(isAgentKind(a.kind), a.kind).toBe(true);
    expect(isAgentKind('cursor')).toBe(false);
  });

  it('gives every agent a distinct display name and a memory notice in each language, the Chinese one its own', () => {
    for (const a of ADAPTERS) {
      expect(a.displayName.trim(), a.kind).not.toBe('');
      expect(agentName(a.kind), a.kind).toBe(a.displayName);
      expect(a.memoryNotice.en.trim(), a.kind).not.toBe('');
      expect(a.memoryNotice.zh.trim(), a.kind).not.toBe('');
      expect(a.memoryNotice.zh, a.kind).not.toBe(a.memoryNotice.en);
    }
    expect(new Set(ADAPTERS.map((a) => a.displayName)).size).toBe(ADAPTERS.length);
  });

  it("checks every agent's home variable: a relative one is refused with a sentence that names it", () => {
    for (const a of ADAPTERS) {
      expect(a.envVars.length, a.kind).toBeGreaterThan(0);
      for (const v of a.envVars) {
        expect(v.check('/abs/path'), `${a.kind} ${v.name}`).toBeNull();
        expect(v.check('rel/dir'), `${a.kind} ${v.name}`).toContain(v.name);
      }
    }
  });

  it('gives every agent of the registry its demo data from its own descriptor, the pinned program named by its package', () => {
    for (const a of ADAPTERS) {
      expect(typeof a.demo?.build, a.kind).toBe('function');
      if (a.demo?.pinned) expect(a.demo.pinned.pkg in PKG.devDependencies, a.kind).toBe(true);
    }
  });

  it('builds the isolated env from every descriptor, all inside the temp root', () => {
    const root = '/tmp/cleanerx-registry-root';
    const env = isolatedEnv(root);
    for (const a of ADAPTERS) {
      const own = a.isolatedEnv(join(root, 'home'));
      expect(Object.keys(own).length, a.kind).toBeGreaterThan(0);
      for (const [k, v] of Object.entries(own)) expect(env[k], `${a.kind} ${k}`).toBe(v);
      // The variable that moves the agent's home is set (OpenCode's is the shared XDG_DATA_HOME).
      expect(env[a.homeEnvVar], a.kind).toBeDefined();
    }
    for (const [k, v] of Object.entries(env)) expect(v.startsWith(`${root}/`), k).toBe(true);
  });

  it('detection reports every agent in registry order with its name and memory notice', async () => {
    t = makeTempEnv();
    const found = await new Engine(ADAPTERS, t.ctx).detect();
    expect(found.map((i) => i.agent)).toEqual(ADAPTERS.map((a) => a.kind));
    expect(found.map((i) => i.displayName)).toEqual(ADAPTERS.map((a) => a.displayName));
    expect(found.map((i) => i.memoryNotice)).toEqual(ADAPTERS.map((a) => a.memoryNotice.en));
    expect(found.map((i) => i.labels)).toEqual(ADAPTERS.map((a) => a.labels));
    // A subset keeps the registry's order, whatever order it was asked in.
    const some = await new Engine(ADAPTERS, t.ctx).detect({ agents: ['pi', 'codex'] });
    expect(some.map((i) => i.agent)).toEqual(['codex', 'pi']);
  });

  it("the detail pane names sources and metadata with the detected agent's own labels", async () => {
    t = makeTempEnv();
    const detail = async (kind: AgentKind) => {
      const adapter = ADAPTERS.find((a) => a.kind === kind)!;
      const inst = await detectOne(adapter, t!.ctx, undefined, false);
      const inv = inventory([session('s1', { source: 'vscode', metadata: { pinned: true, source: 'listing', historyMode: 'legacy' } })]);
      const fields = new Snapshot(kind, inst, inv, NOW, 1).detail('session:s1').sections.flatMap((x) => x.fields);
      return Object.fromEntries(fields.map((f) => [f.label, f.value]));
    };
    const codex = await detail('codex');
    expect(codex.Source).toBe('Desktop / IDE');
    expect(codex.Pinned).toBe('yes');
    expect(codex['Recorded as']).toBe('listing');
    expect(codex.historyMode).toBeUndefined();
    // Only Codex names a `vscode` source; another agent shows the value as it is.
    expect((await detail('claude')).Source).toBe('vscode');
  });
});
