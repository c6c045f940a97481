// Horizontal bars drawn with block characters, scaled to a maximum.

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function bar(value: number, max: number, width: number): string {
  if (width <= 0) return '';
  if (max <= 0 || value <= 0) return ' '.repeat(width);
  const cells = Math.min(width, (value / max) * width);
  const full = Math.floor(cells);
  const frac = Math.round((cells - full) * 8);
  let s = '█'.repeat(full);
  if (full < width && frac > 0) s += EIGHTHS[Math.min(7, frac)];
  if (s.length === 0) s = '▏';
  return s + ' '.repeat(Math.max(0, width - [...s].length));
}
