// Mutation runs need only the system tools the unit tests call (age, zstd,
// tar, strace…). No dist/ rebuild: the sandbox's sources are instrumented,
// and a CLI built from them would be neither the product nor the mutant.
// @ts-expect-error plain ESM script shared with `node scripts/ensure-system-tools.mjs`
import { ensureSystemTools } from '../../scripts/ensure-system-tools.mjs';

export default function setup(): void {
  const problem = (ensureSystemTools as () => string | null)();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
