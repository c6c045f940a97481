// A trend as one row of block characters: shapes, not colours, so it reads
// the same in 8 colours and under NO_COLOR.

const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** One block character per value, scaled between the smallest and the largest (all equal: a flat middle line). */
export function sparkline(values: readonly number[], width = values.length): string {
  const v = values.slice(-Math.max(0, width));
  if (!v.length) return '';
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return v.map((x) => (hi === lo ? SPARKS[3]! : SPARKS[Math.min(7, Math.floor(((x - lo) / (hi - lo)) * 7.999))]!)).join('');
}
