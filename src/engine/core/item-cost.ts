// What removing one item costs (issue #16 part 6), from the item's own facts
// and the agent's descriptor labels: the planner puts it on every plan item,
// the detail pane shows it for every row.

import { t, type MessageKey } from '../i18n/index.js';
import type { Category, ItemCost } from './model.js';

/** What the agent loses with an item of each category, when nothing more particular is known (a catalog key; none: nothing it cannot rebuild). */
const LOSSES: Record<Category, MessageKey | null> = {
  session: 'cost.loss.session',
  archivedSession: 'cost.loss.session',
  memory: 'cost.loss.memory',
  attachment: 'cost.loss.attachment',
  generatedImage: 'cost.loss.generatedImage',
  log: 'cost.loss.log',
  cache: null,
  temporary: null,
  protected: null,
};

/** The cost of removing one item (issue #16 part 6): the facts are the item's, the agent's extra loss comes from its descriptor labels. */
export function itemCost(category: Category, recoverable: boolean, requiresExit: boolean, extraLoss?: string): ItemCost {
  const key = LOSSES[category];
  const base = key ? t(key) : '';
  return {
    recoverable: recoverable ? 'backup' : 'none',
    regenerable: category === 'cache' || category === 'temporary',
    needsAgentStopped: requiresExit,
    agentLoses: [base, extraLoss].filter(Boolean).join(t('cost.lossJoin')),
  };
}
