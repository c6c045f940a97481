// The busy state's spinner (modals/busy.ts): its frames, one every SPIN_MS.
// Apart, so the PTY harness knows a long operation is under way by them
// without loading blessed.

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
export const SPIN_MS = 120;
