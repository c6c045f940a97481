// `cleanerx explain --agent A ID [--json]`: why one session is this big, its
// bytes by record type (engine/core/explain.ts), read only. The id is the
// agent's session id or its item id (session:<id>), as `clean --id` takes it.

import { agentName } from '../engine/core/agents.js';
import { explainBlocks } from '../engine/core/explain.js';
import { t } from '../engine/i18n/index.js';
import type { AgentKind } from '../engine/core/model.js';
import { safe, safeJson, safeText } from '../engine/core/text.js';
import { UsageError } from './usage-error.js';
import type { EngineFactory } from './engine-factory.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

interface ExplainOptions {
  agent: AgentKind;
  id: string;
  json: boolean;
}

export async function runExplain(opts: ExplainOptions, { engine: makeEngine, io }: { engine: EngineFactory; io: Printer }): Promise<number> {
  const engine = await makeEngine({ readOnly: true });
  const summary = await engine.scan(opts.agent);
  const snap = engine.snapshot(summary.snapshotId);
  const id = snap.session(opts.id) ? opts.id : `session:${opts.id}`;
  if (!snap.session(id)) throw new UsageError(t('explain.cli.notFound', { agent: opts.agent, id: opts.id.replace(/[^\x20-\x7e]/g, '?').slice(0, 80) }));
  const e = await engine.explain(summary.snapshotId, id);
  if (opts.json) {
    io.out(safeJson({ formatVersion: 1, ...e, buckets: e.buckets.map((b) => ({ ...b, share: e.totalBytes ? b.bytes / e.totalBytes : 0 })) }));
    return 0;
  }
  io.out(say('cli.home', { agent: agentName(opts.agent), home: safeText(snap.installation.home) }));
  io.out(safe`${safeText(snap.session(id)!.s.title)}  (${safeText(id)})`);
  for (const b of explainBlocks(e)) {
    if (b.kind === 'text') io.out(safeText(b.title), ...b.text.split('\n').map((l) => safe`  ${l}`));
    else if (b.kind === 'notice') io.out(safeText(b.text));
  }
  return 0;
}
