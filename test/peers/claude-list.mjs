// Runs the Claude Agent SDK's OWN session functions from the installed
// @anthropic-ai/claude-agent-sdk and prints the result as JSON on stdout.
// They read (archiveSession writes one mark file, deleteSession removes) under
// CLAUDE_CONFIG_DIR/projects only and never start the claude binary; the
// caller must put CLAUDE_CONFIG_DIR and HOME into this process's environment.
//
//   node claude-list.mjs                  listSessions()
//   node claude-list.mjs archive <id>     archiveSession(id), then listSessions()
//   node claude-list.mjs delete <id>      deleteSession(id), then listSessions()

import { archiveSession, deleteSession, listSessions } from '@anthropic-ai/claude-agent-sdk';

if (!process.env.CLAUDE_CONFIG_DIR) {
  process.stderr.write('CLAUDE_CONFIG_DIR is not set: refusing to let the SDK fall back to the real ~/.claude\n');
  process.exit(3);
}
const [action, id] = process.argv.slice(2);
if (action === 'archive') await archiveSession(id);
else if (action === 'delete') await deleteSession(id);
else if (action !== undefined) {
  process.stderr.write(`unknown action ${action}\n`);
  process.exit(2);
}
const list = await listSessions();
process.stdout.write(JSON.stringify(list));
