// Sentences the engine itself says (errors and warnings the screens and the
// CLI show): spread into en.ts. Never in JSON output, which keeps codes.

export const enEngine = {
  // ---- engine/cleanup/agent-lock.ts ----
  'lock.link': 'The cleanup lock {path} is a symbolic link; remove it and try again.',
  'lock.unreadable': 'The cleanup lock {path} cannot be read ({code}); check its permissions and try again.',
  'lock.notRegular': 'The cleanup lock {path} is not a regular file; remove it and try again.',
  'lock.cannotCreate': 'The cleanup lock {path} cannot be created ({code}); check {dir} and try again.',
  'lock.running': 'Another {agent} cleanup is running (pid {pid}, started {started}, command: {command}); wait for it to finish and try again.',
  'lock.starting': 'Another {agent} cleanup is starting (lock {path}); wait a moment and try again.',
  'lock.changing': 'The {agent} cleanup lock keeps changing ({path}); try again.',
  // ---- engine/host/own-dirs.ts ----
  'dirs.relative': '{name} is a relative path ("{value}"); set it to an absolute path or unset it.',
  'dirs.relativeDb': 'OPENCODE_DB is a relative path ("{value}"); set it to an absolute path, a file name inside OpenCode\'s data dir, or unset it.',
  // ---- engine/host/settings.ts ----
  'settings.file.link': '{path} is a symbolic link (not followed); using defaults.',
  'settings.file.notRegular': '{path} is not a regular file; using defaults.',
  'settings.file.tooLarge': '{path} is too large; using defaults.',
  'settings.file.unreadable': '{path} cannot be read; using defaults.',
  'settings.file.invalid': '{path} is invalid ({reason}); using defaults until you save.',
};
