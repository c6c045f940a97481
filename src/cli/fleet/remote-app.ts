// `cleanerx --host H`: the full-screen app of H's own cleanerx, in this
// terminal, through `ssh -t` (the user's ssh config, agent and jump hosts
// apply; ssh may ask for a password or a host key here, so no BatchMode).
// Nothing of H's data comes here: ssh carries the screen and the keys.

import { constants } from 'node:os';
import type { AgentKind } from '../../engine/core/model.js';
import { spawnTracked } from '../../engine/host/own-children.js';
import { checkHost } from './fleet-hosts.js';
import { sshArgv, type SshSettings } from './ssh-runner.js';

interface RemoteAppRequest {
  host: string;
  readOnly: boolean;
  agent?: AgentKind;
  lang?: 'zh' | 'en';
}

/** What H runs: its cleanerx with the app's own flags (each checked: an agent kind, zh or en). */
export function remoteAppCommand(r: RemoteAppRequest): string {
  const flags = [r.readOnly ? '--read-only' : '', r.agent ? `--agent ${r.agent}` : '', r.lang ? `--lang ${r.lang}` : ''].filter(Boolean);
  return ['cleanerx', ...flags].join(' ');
}

/** ssh's exit code: the remote app's own, 255 when ssh failed (reported as 1, with ssh's own message above it). */
export function runRemoteApp(r: RemoteAppRequest, ssh: SshSettings): Promise<number> {
  const args = sshArgv(ssh, checkHost(r.host), remoteAppCommand(r), true);
  return new Promise((resolve) => {
    const child = spawnTracked(ssh.ssh, args, { stdio: 'inherit', env: ssh.env as NodeJS.ProcessEnv });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code === 255 ? 1 : (code ?? 128 + (signal ? (constants.signals[signal] ?? 15) : 0))));
  });
}
