// Reference for tui-100k: a minimal blessed list that repaints 28 lines per
// key and logs keypress → frame like cleanerx does (CLEANERX_PERF_LOG).
import blessed from 'blessed';
import { appendFileSync } from 'node:fs';

const screen = blessed.screen({ smartCSR: true, fullUnicode: true });
const box = blessed.box({ parent: screen, top: 0, left: 0, width: '100%', height: '100%', tags: true });
let cursor = 0;
let pending = null;
const log = process.env.CLEANERX_PERF_LOG;
const draw = () => {
  const lines = [];
  for (let i = 0; i < 28; i++) lines.push(`${i + cursor === cursor ? '{inverse}' : ''}[ ]   row ${i + cursor} some session title here        cli   3d   4.1 KB${i + cursor === cursor ? '{/inverse}' : ''}`);
  box.setContent(lines.join('\n'));
  screen.render();
  if (pending !== null && log) appendFileSync(log, JSON.stringify({ e: 'key', ms: performance.now() - pending }) + '\n');
  pending = null;
};
screen.on('keypress', (ch) => {
  pending = performance.now();
  if (ch === 'q') process.exit(0);
  cursor = ch === 'k' ? Math.max(0, cursor - 1) : cursor + 1;
  setImmediate(draw);
});
draw();
