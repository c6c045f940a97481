// Every test file starts with the agents installed (engine/core/agents.ts), as
// every entry point of cleanerx does by loading the registry first: a test of
// a flag parser or a file validator knows the same agents the binary knows.

import '../../src/adapters/registry.js';
