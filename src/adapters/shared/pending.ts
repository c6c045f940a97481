// Until an agent's full adapter lands, its folder detects the agent and
// reports its store read-only: no items are invented, nothing is selectable.

import type { Preview } from '../../engine/core/model.js';

export function pendingPreview(itemId: string): Preview {
  return { id: itemId, source: 'none', truncated: false, bytesRead: 0, blocks: [{ kind: 'notice', text: 'Metadata only: no preview for this kind of item.' }] };
}
