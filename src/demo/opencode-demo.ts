// The demo's OpenCode store: a real database needs OpenCode's own schema, so
// when the pinned opencode binary is installed beside cleanerx (a checkout
// after `npm ci`), it creates an empty store in the background and the
// fixture fills it; the files are moved into place database-last, so a scan
// never sees a half-built store. Without the binary the demo keeps its
// minimal OpenCode files.

import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { addOpencodeHogs } from './opencode-demo-hogs.js';
import { buildOpencodeFixture, initOpencodeStore, opencodeSandboxEnv, writeNpmGuard } from '../adapters/opencode/fixture.js';

/** The directory of the exact-pinned platform binary, when it is installed. */
export function bundledOpencodeBinDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve(`opencode-${process.platform}-${process.arch}/package.json`);
    const bin = join(dirname(pkg), 'bin');
    return existsSync(join(bin, 'opencode')) ? bin : null;
  } catch {
    return null;
  }
}

export async function buildDemoOpencodeStore(root: string, env: Record<string, string>, binDir: string, now: number): Promise<void> {
  const dataDir = join(env.XDG_DATA_HOME!, 'opencode');
  const configDir = join(env.XDG_CONFIG_HOME!, 'opencode');
  writeNpmGuard(configDir);
  const build = join(root, 'opencode-build', 'opencode.db');
  await initOpencodeStore(join(binDir, 'opencode'), opencodeSandboxEnv({ ...env, PATH: `${binDir}:/usr/bin:/bin` }, join(root, 'tmp')), build, 60_000);
  const manifest = buildOpencodeFixture({
    db: build,
    workRoot: join(env.HOME!, 'oc-work'),
    dataDir,
    cacheDir: join(env.XDG_CACHE_HOME!, 'opencode'),
    configDir,
    projects: 3,
    rootsPerProject: 6,
    messagesPerSession: 3,
    seed: 17,
    now,
    edgeCases: true,
  });
  addOpencodeHogs(build, dataDir, manifest, now);
  const db = env.OPENCODE_DB!;
  mkdirSync(dirname(db), { recursive: true });
  for (const side of ['-wal', '-shm', '']) if (existsSync(build + side)) renameSync(build + side, db + side);
}
