// Opening a `--demo` home, the same for the app and for `scan --demo` /
// `doctor --demo`: the throw-away home and its lifetime (removed however the
// process ends), the environment that points every agent at it, the agents
// pinned beside this install first on PATH, and OpenCode's real store built
// in the background when the pinned opencode is installed here.

import { DemoLifetime } from './demo-lifetime.js';
import { demoMissingValue, findDemoTools } from './demo-tools.js';
import { bundledOpencodeBinDir, buildDemoOpencodeStore } from './opencode-demo.js';
import { buildDemoCodexLogs } from './codex-demo-logs.js';
import { DEMO_MISSING_ENV } from '../engine/host/detect.js';

interface OpenedDemo {
  demo: DemoLifetime;
  /** `base` with the demo home's variables and PATH in place. */
  env: Record<string, string | undefined>;
}

export async function openDemoHome(base: Readonly<Record<string, string | undefined>>, keep: boolean, now = Date.now()): Promise<OpenedDemo> {
  const demo = new DemoLifetime(keep);
  const home = await demo.create(now);
  const env: Record<string, string | undefined> = { ...base, ...home.env };
  // The pinned agents beside this install, not whatever PATH has (the installed bin runs without npm's node_modules/.bin).
  const tools = findDemoTools();
  // OpenCode's store needs OpenCode itself to create its schema: built in the background when it is installed here.
  const bin = bundledOpencodeBinDir();
  env.PATH = [...tools.dirs, ...(bin ? [bin] : []), base.PATH ?? '/usr/bin:/bin'].join(':');
  if (tools.missing.length) env[DEMO_MISSING_ENV] = demoMissingValue(tools);
  const builds: Promise<unknown>[] = [];
  if (bin) builds.push(buildDemoOpencodeStore(home.root, home.env, bin, now).catch(() => undefined));
  // Codex's logs database with old rows needs the pinned codex too (codex-demo-logs.ts); the demo goes without when it is missing.
  if (!tools.missing.some((m) => m.agent === 'codex')) builds.push(buildDemoCodexLogs(home.root, env, now).catch(() => false));
  if (builds.length) demo.build = Promise.all(builds).then(() => undefined);
  return { demo, env };
}
