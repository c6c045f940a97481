// The key-ring helper child runs with the engine's environment
// (HostContext.env), never the calling process's: an Engine built with a
// temp home must not reach the desktop's real key ring. The engine's env
// here preloads a stand-in (NODE_OPTIONS --require) that answers with the
// HOME the child sees and exits before the real key ring is touched; a child
// started with this process's env would load no stand-in and never answer so.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as KeyringModule from '../../src/backup/keyring.js';
import type * as ServiceModule from '../../src/backup/service.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// The built modules: the helper child is dist/backup/keyring-child.js, beside them.
const { keyringCall } = (await import(new URL('../../dist/backup/keyring.js', import.meta.url).href)) as typeof KeyringModule;
const { backupService } = (await import(new URL('../../dist/backup/service.js', import.meta.url).href)) as typeof ServiceModule;

/** The engine's env: the temp home, plus a preload that stands in for the key ring. */
function engineEnv(t: TempEnv, answer: string): Record<string, string | undefined> {
  const stub = join(t.root, 'keyring-stand-in.cjs');
  writeFileSync(stub, `process.stdout.write(JSON.stringify({ ok: true, value: ${answer} }) + '\\n', () => process.exit(0));\n`);
  return { ...t.ctx.env, NODE_OPTIONS: `--require ${JSON.stringify(stub)}` };
}

describe('key-ring child environment', () => {
  it('keyringCall hands the child the given env, not process.env', async () => {
    const t = makeTempEnv('cleanerx-keyring-env-');
    try {
      expect(process.env.HOME).not.toBe(t.env.HOME);
      const a = await keyringCall(engineEnv(t, 'process.env.HOME'), 'get', 'backup-identity:/nonexistent/cleanerx-test', undefined, 2000);
      expect(a).toEqual({ ok: true, value: t.env.HOME });
    } finally {
      t.cleanup();
    }
  });

  it("the backup service's key-ring unlock runs the child with the engine's env", async () => {
    const t = makeTempEnv('cleanerx-keyring-env-');
    try {
      // A well-formed (throw-away) identity from the stand-in: the unlock succeeds only if the child saw the engine's env.
      const { generateIdentity } = await import('age-encryption');
      const identity = await generateIdentity();
      const svc = backupService(engineEnv(t, JSON.stringify(identity)));
      const key = await svc.unlockKey(t.env.CLEANERX_DATA_DIR!, 'keyring', '');
      expect(key.identity).toBe(identity);
    } finally {
      t.cleanup();
    }
  }, 15_000);
});
