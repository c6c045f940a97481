// `cleanerx doctor`: what was detected for each agent, and cleanerx's own dirs and backup key.

import { AGENT_NAMES } from '../engine/core/model.js';
import { safe, safeText, type SafeText } from '../engine/core/text.js';
import { ownDirs } from '../engine/host/own-dirs.js';
import type { EngineFactory } from './engine-factory.js';
import type { Printer } from './printer.js';
import { settingsLine, stateLabel, writerList } from './writers.js';

export interface DoctorOptions {
  readOnly: boolean;
}

export interface DoctorDeps {
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
  for (const i of installs) {
    lines.push(safe`${AGENT_NAMES[i.agent].padEnd(12)} ${stateLabel(i.state)}`);
    lines.push(
      safe`  home        ${safeText(i.home)} (${i.homeSource === 'override' ? 'settings override' : i.homeSource === 'env' ? 'environment' : 'default'})`,
    );
    lines.push(safe`  executable  ${safeText(i.executable ?? 'not found')}`);
    lines.push(safe`  version     ${safeText(i.version ?? '—')}`);
    if (i.state !== 'notFound') {
      const s = await engine.scan(i.agent);
      lines.push(safe`  writers     ${s.writers.length ? writerList(s.writers) : 'none running'}`);
    }
    for (const w of i.warnings) lines.push(safe`  warning     ${safeText(w)}`);
  }
  lines.push(safe`cleanerx`);
  lines.push(safe`  config      ${safeText(dirs.config)}`);
  if (settings.warning) lines.push(safe`  ${settingsLine(settings)}`);
  lines.push(safe`  state       ${safeText(dirs.state)}`);
  lines.push(safe`  data        ${safeText(dirs.data)}`);
  const key = await engine.keyInfo();
  lines.push(
    key.exists
      ? safe`  backup key  ${safeText(key.path)}${key.problem ? safe` — ${safeText(key.problem)}` : ' (passphrase-protected age identity)'}`
      : safe`  backup key  not created yet; the first backup creates ${safeText(key.path)}`,
  );
  lines.push(
    safe`  key store   ${key.store === 'keyring' ? 'the OS key ring unlocks the backup key (the file stays the recovery path)' : `the passphrase-protected file${env.DBUS_SESSION_BUS_ADDRESS ? '; a desktop session bus is present: `cleanerx backups key-store keyring` (or Settings → K) can hand the unlock to the OS key ring' : ' (no desktop session bus here)'}`}`,
  );
  io.out(...lines);
  return 0;
}
