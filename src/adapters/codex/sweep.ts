// What Codex deletes by itself (fixed by its version, no setting read):
// at start-up it drops its own log rows older than about 10 days. Threads
// stay until they are deleted or archived.

import type { AgentSweep } from '../../engine/inventory/agent-sweep.js';
import { LOGS_ITEM } from './items.js';

export const CODEX_SWEEP: AgentSweep = {
  agentName: 'Codex',
  sessionDays: null,
  sessionRule: '',
  itemRules: [
    {
      id: LOGS_ITEM,
      text: 'Codex deletes its own log rows older than about 10 days when it starts (Codex 0.171); the file keeps its size, the freed pages are reused.',
    },
  ],
};
