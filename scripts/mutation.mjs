// `npm run mutation [-- --mutate <glob>[,<glob>…]] [-- --force]`: Stryker over
// the safety core (stryker.config.mjs). Started through its API rather than
// its CLI: Stryker 10's CLI refuses Node < 22, while the tests it runs need
// the Node 20 this project pins (better-sqlite3 is built for its ABI), and
// the API itself runs on Node 20. The package's index loads the CLI (and its
// version guard) first, so the Stryker class is loaded from its own module.
const { Stryker } = await import(new URL('stryker.js', import.meta.resolve('@stryker-mutator/core')).href);

const options = { configFile: 'stryker.config.mjs' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--mutate' && argv[i + 1]) options.mutate = argv[++i].split(',');
  else if (argv[i] === '--force') options.force = true;
  else {
    process.stderr.write(`Unknown argument ${argv[i]}: use --mutate <glob>[,<glob>…] or --force.\n`);
    process.exit(2);
  }
}
const results = await new Stryker(options).runMutationTest();
process.exitCode = results.length ? 0 : 1;
