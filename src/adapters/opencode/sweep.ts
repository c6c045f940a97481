// What OpenCode deletes by itself (fixed by its version, no setting read):
// while it runs, an hourly job runs `git gc --prune=7.days` on each
// snapshot git dir, and truncated tool output is pruned after 7 days.
// Sessions stay until they are deleted.

import type { AgentSweep } from '../../engine/inventory/agent-sweep.js';

const SNAPSHOT_GC =
  'OpenCode collects these itself: while it runs, an hourly git gc --prune=7.days drops snapshot objects older than 7 days that nothing refers to.';

export const OPENCODE_SWEEP: AgentSweep = {
  agentName: 'OpenCode',
  sessionDays: null,
  sessionRule: '',
  itemRules: [
    // The snapshot dir is one reported-only entry when it holds no repository OpenCode made,
    // else one item per repository (snapshot:opencode:<project>/<hash>): the rule names both.
    { id: 'protected:opencode:snapshot', text: SNAPSHOT_GC },
    { id: 'snapshot:opencode:', text: SNAPSHOT_GC },
    { id: 'protected:opencode:tool-output', text: 'OpenCode deletes truncated tool output older than 7 days by itself.' },
  ],
};
