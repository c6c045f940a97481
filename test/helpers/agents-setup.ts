// Every test file starts with the agents installed (engine/core/agents.ts), as
// every entry point of cleanerx does by loading the registry first: a test of
// a flag parser or a file validator knows the same agents the binary knows.

import { vi } from 'vitest';
import '../../src/adapters/registry.js';
import { budget } from './budget.js';

// The default timeouts are budgets on a quiet 2-core machine: a file that starts on a loaded one gets
// them scaled as every wait is (test/helpers/budget.ts). A test's own explicit timeout stays as written.
vi.setConfig({ testTimeout: budget(30_000), hookTimeout: budget(60_000) });
