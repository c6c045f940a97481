// Copy (c, y) and its dialog, and --no-color: spread into en.ts.

export const enCopy = {
  'copy.resumeKey': "copy the agent's own command that resumes this session",
  'copy.referenceKey': "copy the session's id and file",
  'copy.footer': 'copy',
  'copy.onSession': 'Copy works on a session row: move to a session first.',
  'copy.titleResume': 'Copied: resume command',
  'copy.titleReference': 'Copied: id and file',
  'copy.none': '{agent} has no command that resumes this session.',
  'copy.unsafe': 'Not copied: its folder, id or file holds a control or invisible character, and a pasted command could run something else.',
  'copy.noReference': 'Not copied: its id or file holds a control or invisible character.',
  'copy.sentTmux':
    "Sent through tmux (OSC 52). With `set -g set-clipboard on` in ~/.tmux.conf it is in tmux's buffer (prefix ]) and on your terminal's clipboard.",
  'copy.sentScreen': 'Sent through GNU screen to your terminal (OSC 52).',
  'copy.sentTerminal': "Sent to your terminal's clipboard (OSC 52).",
  'copy.tooLarge': 'Too long for a terminal clipboard request: select the text above.',
  'copy.selectIfRefused': 'A terminal that refuses OSC 52 leaves the clipboard as it was: select the text above.',
  'copy.status': 'Copied {what}.',
  'copy.whatResume': 'the resume command',
  'copy.whatReference': 'the id and file',
  'cli.help.color': 'colour in the app; --no-color (or NO_COLOR set) draws it with bold, inverse and words only',
};
