// One thing, one size (issue #27 item 4, docs/sizes.md): what a cleanup
// frees is "on disk" (allocated bytes) everywhere a user reads it, and a
// backup keeps the on-disk size of what it holds, so the number the clean
// (and the review, the plan's estimatedBackupBytes) promised is the number
// `backups list` and the Backups screen show for that backup; the other
// sizes are labelled (content, archive).

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEngine } from '../../src/cli/engine-factory.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { formatBytes } from '../../src/engine/core/format.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const SECRET = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
const PASS = 'passphrase-123\n';
let t: TempEnv;
afterEach(() => t?.cleanup());

function cli(args: string[], input = ''): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args, '--lang', 'en'], { env: { ...t.env, ...SECRET }, encoding: 'utf8', input, timeout: 60_000 });
}

describe('one size per thing', () => {
  it('the clean, the plan, backups list and the engine’s backup summary give the same on-disk number; other sizes are labelled', async () => {
    t = makeTempEnv('cleanerx-one-size-');
    const m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
    const id = `session:${m.sessions[0]!.id}`;

    const engine = cliEngine(t.env, { readOnly: true });
    const summary = await engine.scan('pi');
    const plan = await engine.plan(summary.snapshotId, [id]);
    expect(plan.backupEligible).toBe(true);
    const onDisk = formatBytes(plan.estimatedBackupBytes);

    const clean = cli(['clean', '--agent', 'pi', '--id', id, '--yes', '--backup'], PASS);
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`pi: 1 item, ${onDisk} on disk`);

    const list = cli(['backups', 'list']);
    expect(list.status, list.stderr).toBe(0);
    const row = list.stdout.trim().split('\n')[0]!;
    const b = (await cliEngine(t.env, { readOnly: true }).backupsList())[0]!;
    expect(b.onDiskBytes).toBe(plan.estimatedBackupBytes);
    // On disk first, the other two sizes by name.
    expect(row).toContain(`${onDisk} on disk (content ${formatBytes(b.originalBytes)}, archive ${formatBytes(b.archiveBytes)})`);
  }, 120_000);
});
