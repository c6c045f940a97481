// The core journey (test/helpers/core-journey.ts) in real tmux under
// tmux-256color, screen-256color, xterm and xterm-256color and in a headless
// xterm, at 160×45; the screen invariants and the redraw check run after
// every step.

import { coreJourneyAt } from '../helpers/core-journey.js';

coreJourneyAt(160, 45);
