// Runs pi's OWN session lister, SessionManager.listAll() from an installed pi
// (@mariozechner/pi-coding-agent 0.73 under this Node, or
// @earendil-works/pi-coding-agent 1.x under the Node 22 of test/peers/pi1),
// and prints what it found as JSON on stdout.
//
//   node pi-list-all.mjs <path to dist/core/session-manager.js>
//
// listAll() is read-only (readdir + readFile + stat). list(cwd) and open() are
// NOT: the first creates the cwd's bucket, the second migrates or truncates
// files. pi reads PI_CODING_AGENT_DIR when config.js is first imported, so the
// caller must put it (and HOME) into this process's environment.

import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const smPath = process.argv[2];
if (!smPath) {
  process.stderr.write('usage: node pi-list-all.mjs <session-manager.js>\n');
  process.exit(2);
}
const agentDirEnv = process.env.PI_CODING_AGENT_DIR;
if (!agentDirEnv) {
  process.stderr.write('PI_CODING_AGENT_DIR is not set: refusing to let pi fall back to the real ~/.pi/agent\n');
  process.exit(3);
}

const config = await import(pathToFileURL(join(dirname(dirname(smPath)), 'config.js')).href);
if (config.getAgentDir() !== agentDirEnv) {
  process.stderr.write(`pi resolved its agent dir to ${config.getAgentDir()}, not ${agentDirEnv}\n`);
  process.exit(3);
}
const { SessionManager } = await import(pathToFileURL(smPath).href);
if (typeof SessionManager?.listAll !== 'function') {
  process.stderr.write('SessionManager.listAll is missing from this pi version\n');
  process.exit(4);
}

const list = await SessionManager.listAll();
const out = list.map((s) => ({
  path: s.path,
  id: s.id,
  cwd: s.cwd,
  name: s.name ?? null,
  firstMessage: s.firstMessage,
  messageCount: s.messageCount,
  parentSessionPath: s.parentSessionPath ?? null,
  modified: s.modified instanceof Date && !Number.isNaN(s.modified.getTime()) ? s.modified.toISOString() : null,
}));
process.stdout.write(JSON.stringify({ sessionsDir: config.getSessionsDir(), sessions: out }));
