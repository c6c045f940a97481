// What removing one item costs (issue #16 part 6), from the item's own facts
// and the agent's descriptor labels: the planner puts it on every plan item,
// the detail pane shows it for every row.

import type { Category, ItemCost } from './model.js';

/** What the agent loses with an item of each category, when nothing more particular is known. */
const LOSSES: Record<Category, string> = {
  session: 'the history of this session and resuming it',
  archivedSession: 'the history of this session and resuming it',
  memory: 'what it remembered across sessions',
  attachment: 'the files attached to its sessions',
  generatedImage: 'the images it made',
  log: 'the record it keeps for troubleshooting',
  cache: '',
  temporary: '',
  protected: '',
};

/** The cost of removing one item (issue #16 part 6): the facts are the item's, the agent's extra loss comes from its descriptor labels. */
export function itemCost(category: Category, recoverable: boolean, requiresExit: boolean, extraLoss?: string): ItemCost {
  const base = LOSSES[category];
  return {
    recoverable: recoverable ? 'backup' : 'none',
    regenerable: category === 'cache' || category === 'temporary',
    needsAgentStopped: requiresExit,
    agentLoses: [base, extraLoss].filter(Boolean).join('; '),
  };
}
