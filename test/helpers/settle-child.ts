// A separate process that settles interrupted restores (so a test can run it
// as another user). Run with `node --import jiti/register`. argv[2]: JSON
// { journalDir, stagingParent, mode, roots }; prints the outcomes as JSON.
// The registry names the agents a journal may belong to (as cli.ts and the worker load it first).
import '../../src/adapters/registry.js';
import { settlePendingRestores } from '../../src/backup/restore.js';

const a = JSON.parse(process.argv[2]!) as { journalDir: string; stagingParent: string; mode: 'resume' | 'rollback'; roots: Record<string, string> };
settlePendingRestores({ journalDir: a.journalDir, stagingParent: a.stagingParent, mode: a.mode, rootsFor: async () => a.roots }).then(
  (o) => process.stdout.write(JSON.stringify(o.map((x) => x.outcome)) + '\n'),
  (e: Error) => {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  },
);
