// `cleanerx doctor`: what was detected for each agent, and cleanerx's own dirs and backup key.

import { agentName } from '../engine/core/agents.js';
import { safe, safeText, type SafeText } from '../engine/core/text.js';
import { ownDirs } from '../engine/host/own-dirs.js';
import type { EngineFactory } from './engine-factory.js';
import type { Printer } from './printer.js';
import { label, say } from './say.js';
import { settingsLine, stateLabel, writerList } from './writers.js';

interface DoctorOptions {
  readOnly: boolean;
}

interface DoctorDeps {
  engine: EngineFactory;
  io: Printer;
  /** cleanerx's dirs and whether a desktop session bus is there to offer the key ring. */
  env: Readonly<Record<string, string | undefined>>;
}

export async function runDoctor(opts: DoctorOptions, { engine: makeEngine, io, env }: DoctorDeps): Promise<number> {
  const engine = await makeEngine({ readOnly: opts.readOnly });
  const settings = await engine.loadSettings();
  const installs = await engine.detect({ versions: true });
  const dirs = ownDirs(env);
  const lines: SafeText[] = [];
  // Labels padded to 12 columns by display width, as the English ones always were.
  const row = (key: Parameters<typeof label>[0], value: SafeText | string): SafeText => safe`  ${label(key, 12)}${value}`;
  for (const i of installs) {
    lines.push(safe`${agentName(i.agent).padEnd(12)} ${stateLabel(i.state)}`);
    const from = i.homeSource === 'override' ? 'cli.doctor.fromOverride' : i.homeSource === 'env' ? 'cli.doctor.fromEnv' : 'cli.doctor.fromDefault';
    lines.push(row('cli.doctor.home', safe`${safeText(i.home)} (${say(from)})`));
    lines.push(row('cli.doctor.executable', i.executable ? safeText(i.executable) : say('cli.doctor.notFound')));
    lines.push(row('cli.doctor.version', safeText(i.version ?? '—')));
    if (i.state !== 'notFound') {
      // Only the running processes: a scan would start Codex's App Server and read every store.
      const writers = await engine.writers(i.agent);
      lines.push(row('cli.doctor.writers', writers.length ? writerList(writers) : say('cli.doctor.noWriters')));
    }
    for (const w of i.warnings) lines.push(row('cli.doctor.warning', safeText(w)));
  }
  lines.push(safe`cleanerx`);
  lines.push(row('cli.doctor.config', safeText(dirs.config)));
  if (settings.warning) lines.push(safe`  ${settingsLine(settings)}`);
  lines.push(row('cli.doctor.state', safeText(dirs.state)));
  lines.push(row('cli.doctor.data', safeText(dirs.data)));
  const key = await engine.keyInfo();
  lines.push(
    row(
      'cli.doctor.key',
      key.exists
        ? key.problem
          ? safe`${safeText(key.path)} — ${safeText(key.problem)}`
          : say('cli.doctor.keyProtected', { path: safeText(key.path) })
        : say('cli.doctor.keyNone', { path: safeText(key.path) }),
    ),
  );
  lines.push(
    row(
      'cli.doctor.store',
      say(key.store === 'keyring' ? 'cli.doctor.storeKeyring' : env.DBUS_SESSION_BUS_ADDRESS ? 'cli.doctor.storeFileBus' : 'cli.doctor.storeFile'),
    ),
  );
  io.out(...lines);
  return 0;
}
