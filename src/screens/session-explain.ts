// The Sessions screen's `b` (#29.5): why the cursor's session is this big.
// The engine streams the whole session in the worker, so the keys stay free;
// the busy state has them meanwhile and Esc drops the answer at once (explain
// only reads). The answer is shown as the detail pane's preview.

import { explainBlocks } from '../engine/core/explain.js';
import { t } from '../engine/i18n/index.js';
import type { Preview } from '../engine/core/model.js';
import type { AppContext } from './screen.js';

/** The preview source the detail pane words as "bytes by record type". */
const EXPLAIN_SOURCE = 'explain';

export async function explainPreview(app: AppContext, snapshotId: string, id: string): Promise<Preview> {
  const e = await app.busy({ title: t('explain.busyTitle'), first: { phase: t('explain.busyPhase') }, cancel: { cancelled: t('explain.cancelled') } }, () =>
    app.engine.explain(snapshotId, id),
  );
  return { id, source: EXPLAIN_SOURCE, truncated: false, bytesRead: e.totalBytes, blocks: explainBlocks(e) };
}
