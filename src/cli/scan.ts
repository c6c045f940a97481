// `cleanerx scan [--agent A] [--json]`: the inventory, as text or as the documented JSON report.

import { agentName, agentKinds } from '../engine/core/agents.js';
import { scanAgents, scanReport, scanReportPieces } from '../engine/api/scan-report.js';
import { formatBytes, formatCount } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import type { AgentKind, Category } from '../engine/core/model.js';
import { joinSafe, padWidth, safe, safeJsonText, safeText, type SafeText } from '../engine/core/text.js';
import type { EngineFactory } from './engine-factory.js';
import type { Printer } from './printer.js';
import { label, say } from './say.js';
import { settingsLine, stateLabel, writerList } from './writers.js';

export interface ScanOptions {
  agent?: AgentKind;
  json: boolean;
  readOnly: boolean;
}

interface ScanDeps {
  engine: EngineFactory;
  io: Printer;
}

export async function runScan(opts: ScanOptions, { engine: makeEngine, io }: ScanDeps): Promise<number> {
  const engine = await makeEngine({ readOnly: opts.readOnly });
  const settings = await engine.loadSettings();
  // Every agent is scanned before anything is printed: a failed scan leaves stdout empty.
  const scans = await scanAgents(engine, opts.agent ? [opts.agent] : agentKinds());
  if (opts.json) {
    await printJson(scanReportPieces(scans), io);
    // stdout stays the contract; the settings problem goes beside it.
    if (settings.warning) io.err(settingsLine(settings));
    return 0;
  }
  const report = scanReport(scans);
  const out: SafeText[] = [];
  if (settings.warning) out.push(settingsLine(settings), safe``);
  for (const a of report.agents) {
    out.push(safe`${agentName(a.agent)} — ${stateLabel(a.state)}${a.version ? safe` ${safeText(a.version)}` : ''}`);
    out.push(safe`  ${label('cli.scan.home', 10)}${safeText(a.home)}`);
    if (a.state === 'notFound') {
      out.push(safe``);
      continue;
    }
    out.push(
      safe`  ${label('cli.scan.total', 10)}${say('cli.scan.totalValue', { bytes: formatBytes(a.totals.bytes), items: t('count.items', { count: a.totals.items }), sessions: t('count.sessions', { count: a.sessions.length }) })}`,
    );
    for (const [cat, c] of Object.entries(a.totals.byCategory)) {
      out.push(safe`    ${padWidth(t(`category.${cat as Category}`), 18)} ${formatBytes(c.bytes).padStart(9)}  ${formatCount(c.items)}`);
    }
    if (a.writers.length) out.push(safe`  ${label('cli.scan.running', 10)}${writerList(a.writers)}`);
    const top = a.projects.slice(0, 10);
    if (top.length) out.push(safe`  ${say('cli.scan.largest')}`);
    for (const p of top)
      out.push(
        safe`    ${formatBytes(p.bytes).padStart(9)}  ${say('cli.scan.projectSessions', { count: p.sessions, sessions: String(p.sessions).padStart(5) })}  ${safeText(p.label)}`,
      );
    if (a.warnings.length)
      out.push(safe`  ${label('cli.scan.warnings', 10)}${say('cli.scan.warningsValue', { warnings: t('count.warnings', { count: a.warnings.length }) })}`);
    out.push(safe``);
  }
  // The last agent's blank line ends the output.
  io.out(joinSafe(out.slice(0, -1), safe`\n`));
  return 0;
}

/**
 * The report written as it is stringified (compact: 100k sessions would be
 * megabytes of indentation for a machine reader). Each piece is sanitized on
 * its own: pieces split the JSON between tokens, so the escapes are the ones
 * the whole text would get.
 */
async function printJson(pieces: Iterable<string>, io: Printer): Promise<void> {
  if (!io.outPiece) {
    let all = '';
    for (const p of pieces) all += p;
    io.out(safeJsonText(all));
    return;
  }
  for (const p of pieces) await io.outPiece(safeJsonText(p));
  await io.outPiece(safe`\n`);
}
