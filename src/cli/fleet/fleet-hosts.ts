// Which hosts a fleet command reaches: the command line's names and a hosts
// file's lines. A host string goes to ssh as an argument, so it is checked
// here first: a leading '-' would be read as an option (ssh -oProxyCommand=…),
// and whitespace, quotes or control characters have no place in a name.

import { t } from '../../engine/i18n/index.js';
import { readRegularText } from '../../engine/host/bounded-read.js';
import { UsageError } from '../usage-error.js';

/** A host as ssh takes it: [user@]name, an IPv4/IPv6 address or a ~/.ssh/config alias. */
const HOST = /^[A-Za-z0-9_.[][A-Za-z0-9_.%+:@[\]-]{0,252}$/;
const HOSTS_FILE_MAX = 1 << 20;

/** What a bad host looks like in an error line: printable ASCII only, bounded. */
export const shownHost = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 60);

/** The host, or a usage error (exit 2) naming it. */
export function checkHost(host: string): string {
  if (!HOST.test(host) || host.includes('..') || host.endsWith('@')) throw new UsageError(t('fleet.err.badHost', { got: shownHost(host) }));
  return host;
}

/** One host per line; blank lines and `#` comments are skipped. */
export function parseHostsText(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '').replace(/#.*/, '').trim();
    if (line) out.push(line);
  }
  return out;
}

/** The hosts named and those of the hosts file, each once, in order; a usage error when none. */
export function fleetHosts(named: readonly string[], hostsFile: string | undefined): string[] {
  const all = [...named];
  if (hostsFile !== undefined) {
    let text: string;
    try {
      text = readRegularText(hostsFile, HOSTS_FILE_MAX);
    } catch (e) {
      throw new UsageError(t('fleet.err.hostsFile', { file: shownHost(hostsFile), reason: (e as Error).message }));
    }
    all.push(...parseHostsText(text));
  }
  const hosts = [...new Set(all.map(checkHost))];
  if (!hosts.length) throw new UsageError(t('fleet.err.noHosts'));
  return hosts;
}
