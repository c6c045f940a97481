// `cleanerx --host H`: the full-screen app of H's own cleanerx in this
// terminal, through `ssh -t` to a real sshd, under real tmux at 80×24. The
// screen shows H's agent data (its pi sessions), not this machine's; q
// quits the remote app and the exit comes back.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { openPty, openTmux, TMUX_80x24 } from '../helpers/app-screen.js';
import { budget } from '../helpers/budget.js';
import { type SshLab, startSshLab } from '../helpers/sshd.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let lab: SshLab;

beforeAll(async () => {
  t = makeTempEnv('cleanerx-fleet-host-');
  lab = await startSshLab(join(t.root, 'lab'), [{ name: 'devbox', pty: true }]);
  const h = lab.hosts.get('devbox')!;
  buildPiFixture({
    agentDir: h.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 3,
    seed: 7,
    forkRate: 0,
    now: Date.now(),
    cwdRoot: join(h.env.HOME!, 'src', 'devbox-only-project'),
  });
}, budget(60_000));

afterAll(async () => {
  await lab?.stop();
  t?.cleanup();
});

describe('cleanerx --host H', () => {
  it("opens H's own app through ssh -t; its data, not this machine's; q ends it with exit 0", { timeout: budget(120_000) }, async () => {
    // The local home has no agent data at all: whatever the screen shows of pi came from devbox.
    const s = openTmux({
      args: ['--host', 'devbox', '--agent', 'pi', '--ssh-config', lab.config],
      env: { ...t.env, CLEANERX_SETTLED_FILE: undefined },
      cols: TMUX_80x24.cols,
      rows: TMUX_80x24.rows,
    });
    s.checkInvariants = false;
    await s.waitFor(/2 Sessions \(3\)/, 60_000);
    await s.waitFor(/3 sessions · /, 30_000);
    s.press('q');
    expect(await s.waitExit(30_000)).toBe(0);
  });

  it('a host that cannot be reached ends with exit 1 and ssh\u2019s own line', { timeout: budget(60_000) }, async () => {
    // A headless terminal keeps what was written after the process ended.
    const s = openPty({ args: ['--host', lab.downHost, '--ssh-config', lab.config], env: { ...t.env, CLEANERX_SETTLED_FILE: undefined }, cols: 80, rows: 24 });
    s.checkInvariants = false;
    expect(await s.waitExit(30_000)).toBe(1);
    // node-pty may report the exit before it delivers the last output (seen at load 12): wait for the line, not for a moment.
    await vi.waitFor(() => expect(s.text()).toMatch(/ssh: connect to host 127\.0\.0\.1 port \d+: Connection refused/), {
      timeout: budget(10_000),
      interval: 50,
    });
  });
});
