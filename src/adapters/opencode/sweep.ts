// What OpenCode deletes by itself (fixed by its version, no setting read):
// while it runs, an hourly job runs `git gc --prune=7.days` on each
// snapshot git dir, and truncated tool output is pruned after 7 days.
// Sessions stay until they are deleted.

import type { AgentSweep } from '../../engine/inventory/agent-sweep.js';

export const OPENCODE_SWEEP: AgentSweep = {
  agentName: 'OpenCode',
  sessionDays: null,
  sessionRule: '',
  itemRules: [
    {
      id: 'protected:opencode:snapshot',
      text: 'OpenCode collects these itself: while it runs, an hourly git gc --prune=7.days drops snapshot objects older than 7 days that nothing refers to.',
    },
    { id: 'protected:opencode:tool-output', text: 'OpenCode deletes truncated tool output older than 7 days by itself.' },
  ],
};
