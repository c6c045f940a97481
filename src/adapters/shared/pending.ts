// Until an agent's full adapter lands, its folder detects the agent and
// reports its store read-only: no items are invented, nothing is selectable.

import type { Inventory } from '../../engine/core/model.js';
import { AGENT_NAMES, type AgentKind } from '../../engine/core/model.js';
import type { Preview } from '../../engine/core/model.js';

export function pendingInventory(kind: AgentKind, home: string): Inventory {
  return {
    sessions: [],
    items: [],
    projects: [],
    writers: [],
    warnings: [{ path: home, reason: `${AGENT_NAMES[kind]} inventory is not available in this version of cleanerx; detection only.` }],
  };
}

export function pendingPreview(itemId: string): Preview {
  return { id: itemId, source: 'none', truncated: false, bytesRead: 0, blocks: [{ kind: 'notice', text: 'Metadata only: no preview for this kind of item.' }] };
}
