// The composition root's list of agents, in the order the UI shows them.

import type { AgentAdapter } from '../engine/core/adapter.js';
import { claudeAdapter } from './claude/index.js';
import { codexAdapter } from './codex/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { piAdapter } from './pi/index.js';

export const ADAPTERS: readonly AgentAdapter[] = [codexAdapter, claudeAdapter, opencodeAdapter, piAdapter];
