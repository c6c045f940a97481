// Runs the Claude Agent SDK's OWN session lister, listSessions() from the
// installed @anthropic-ai/claude-agent-sdk, and prints what it found as JSON on
// stdout. listSessions reads CLAUDE_CONFIG_DIR/projects only (readdir, stat,
// bounded reads) and never starts the claude binary; the caller must put
// CLAUDE_CONFIG_DIR and HOME into this process's environment.
//
//   node claude-list.mjs

import { listSessions } from '@anthropic-ai/claude-agent-sdk';

if (!process.env.CLAUDE_CONFIG_DIR) {
  process.stderr.write('CLAUDE_CONFIG_DIR is not set: refusing to let the SDK fall back to the real ~/.claude\n');
  process.exit(3);
}
const list = await listSessions();
process.stdout.write(JSON.stringify(list));
