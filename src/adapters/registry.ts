// The one list of agents: the composition roots hand it to the Engine, the
// demo and the test homes derive each agent's variables and data from it, and
// its order is the order detection reports and the UI shows. A new agent is
// its folder and one entry here (its import and its place in the list);
// test/pty/stub-agent.test.ts proves that nothing else needs a change.

import type { AgentAdapter } from '../engine/core/adapter.js';
import { installAgents } from '../engine/core/agents.js';
import { claudeAdapter } from './claude/index.js';
import { codexAdapter } from './codex/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { piAdapter } from './pi/index.js';

// biome-ignore format: one line per agent
export const ADAPTERS: readonly AgentAdapter[] = [
  codexAdapter,
  claudeAdapter,
  opencodeAdapter,
  piAdapter,
];

// Every layer outside the adapters reads kinds, order and names from here (engine/core/agents.ts says why).
installAgents(ADAPTERS);
