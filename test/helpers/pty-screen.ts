// The PTY harness moved to app-screen.ts (one harness for the headless xterm
// and tmux). These names stay for the unit tests that still import them from
// here; new code imports app-screen.ts (or constants.ts for CLI).

export { CLI, KEYS, PtyScreen, ScreenDriver } from './app-screen.js';
