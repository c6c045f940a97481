// The agents installed before each test file, as test/helpers/agents-setup.ts
// does for the suite (without its timeouts: this config keeps its own, for
// the slower instrumented code). Without it a test that names an agent
// ("Claude Code") passes in the suite and fails in Stryker's first run.
import '../../src/adapters/registry.js';
