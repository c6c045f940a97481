#!/usr/bin/env node
// Reference for the cold-start bench: the smallest blessed app that paints.
// One screen, one box saying "ready", one render; any key exits.

import blessed from 'blessed';

const screen = blessed.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'ref' });
blessed.box({ parent: screen, top: 'center', left: 'center', width: 20, height: 3, border: 'line', content: 'ready' });
screen.key(['q', 'C-c', 'escape', 'enter', 'space'], () => {
  screen.destroy();
  process.exit(0);
});
screen.on('keypress', () => {
  screen.destroy();
  process.exit(0);
});
screen.render();
