// A separate process that settles interrupted restores (so a test can run it
// as another user). argv[2]: JSON { journalDir, stagingParent, mode, roots };
// prints the outcomes as JSON.
import { load } from './child-modules.mjs';

const a = JSON.parse(process.argv[2]);
// The registry names the agents a journal may belong to (as cli.ts and the worker load it first).
await load('adapters/registry');
const { settlePendingRestores } = await load('backup/restore');
settlePendingRestores({ journalDir: a.journalDir, stagingParent: a.stagingParent, mode: a.mode, rootsFor: async () => a.roots }).then(
  (o) => process.stdout.write(`${JSON.stringify(o.map((x) => x.outcome))}\n`),
  (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  },
);
