// The one list of agents: the composition roots hand it to the Engine, the
// demo and the test homes derive each agent's variables and data from it, and
// its order is the order detection reports and the UI shows. A new agent is
// its folder, one line here, its kind in engine/core/model.ts (AGENT_KINDS)
// and its demo hook in src/demo/demo-agents.ts.

import type { AgentAdapter } from '../engine/core/adapter.js';
import { claudeAdapter } from './claude/index.js';
import { codexAdapter } from './codex/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { piAdapter } from './pi/index.js';

export const ADAPTERS: readonly AgentAdapter[] = [codexAdapter, claudeAdapter, opencodeAdapter, piAdapter];
