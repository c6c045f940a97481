// Issue #18's figures, each against its target, from what a bench returned,
// and issue #30's table (ISSUE_TABLE): every row with its reference, the
// wall and CPU ratios this run measured, and pass/fail against its target.
// A bench may return `figures` itself ([{ label, value, unit, op, target }]);
// for the others the figure is read from the fields it already returns.
// `op` is '≤' (lower is better) or '≥'; `unit` is '×', 'ms' or 'MB'.

const ratio = (label, target) => (r) => [{ label, value: r.ratio, unit: '×', op: '≤', target }];

const DERIVED = {
  'pi-scan-10k': ratio('pi inventory vs a plain reader', 2.2),
  'claude-scan-10k': ratio('Claude inventory vs a plain walk', 2.0),
  'opencode-5k': (r) => [
    {
      label: 'OpenCode inventory vs a plain SELECT',
      value: r.extra?.scanOursMs != null && r.extra?.scanReferenceMs ? r.extra.scanOursMs / r.extra.scanReferenceMs : null,
      unit: '×',
      op: '≤',
      target: 2,
    },
  ],
  'cold-start': ratio('cold start vs a minimal blessed app', 1.5),
  'backup-1g': (r) => [{ label: 'restore vs age -d | zstd -d | tar -x', value: r.extra?.restore?.throughputRatio ?? null, unit: '×', op: '≥', target: 0.5 }],
  'pi-delete-1k': (r) => [{ label: 'deleting 1,000 pi sessions', value: r.ours, unit: 'ms', op: '≤', target: 500 }],
  'tui-100k': (r) => [
    { label: 'peak RSS, 100k sessions in the app', value: r.extra?.peakRssBytes == null ? null : r.extra.peakRssBytes / 1e6, unit: 'MB', op: '≤', target: 200 },
    { label: 'worst key while a 100k scan runs', value: r.runs?.during?.length ? Math.max(...r.runs.during) : null, unit: 'ms', op: '≤', target: 50 },
  ],
  'cli-codex-share': ratio('scan --json --agent pi with Codex installed vs without', 1.25),
};

/** The figures a bench result stands for ([] when it has none in the issue). */
export function figuresOf(res) {
  if (Array.isArray(res.figures)) return res.figures;
  const derived = DERIVED[res.name];
  if (derived) return derived(res);
  // Not an issue figure: the bench's own ratio and target, when it has one.
  return res.target == null ? [] : [{ label: `${res.name} vs its reference`, value: res.ratio, unit: '×', op: '≤', target: res.target }];
}

function fmtValue(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) return 'n/a';
  return unit === '×' ? `${v.toFixed(2)}×` : `${v.toFixed(0)} ${unit}`;
}

/** 'within target', 'OVER target' or 'n/a'. */
export function verdict(f) {
  if (f.value === null || f.value === undefined || Number.isNaN(f.value)) return 'n/a';
  const ok = f.op === '≥' ? f.value >= f.target : f.value <= f.target;
  return ok ? 'within target' : 'OVER target';
}

/** One line: the figure, its target and whether it is met. */
export function figureLine(f) {
  const t = f.unit === '×' ? `${f.target}×` : `${f.target} ${f.unit}`;
  return `${f.label}: ${fmtValue(f.value, f.unit)} (target ${f.op} ${t}: ${verdict(f)})`;
}

/** A figure a bench returned, by the start of its label; its value or null. */
const figure = (res, start) => res?.figures?.find((f) => f.label.startsWith(start))?.value ?? null;

/**
 * Issue #30's table, row by row: the bench that measures the row and how its
 * result reads as wall and CPU (either may be n/a); `on` says which of the two
 * the target is about. A row no bench measures says so.
 */
export const ISSUE_TABLE = [
  {
    figure: 'pi scan 10k',
    reference: 'plain reader of the same prefixes',
    bench: 'pi-scan-10k',
    op: '≤',
    target: 2.2,
    unit: '×',
    on: 'cpu',
    read: (r) => ({ wall: r.extra?.wallRatio ?? null, cpu: r.extra?.cpuRatio ?? null }),
  },
  {
    figure: 'Claude scan 10k',
    reference: 'same-I/O walk, same 64 KiB head/tail',
    bench: 'claude-scan-10k',
    op: '≤',
    target: 2.0,
    unit: '×',
    on: 'cpu',
    read: (r) => ({ wall: r.extra?.wallRatio ?? null, cpu: r.extra?.cpuRatio ?? null }),
  },
  {
    figure: 'OpenCode inventory 5k',
    reference: 'the same SELECTs plus a JSON report',
    bench: 'opencode-5k',
    op: '≤',
    target: 1.5,
    unit: '×',
    on: 'cpu',
    read: (r) => ({ wall: figure(r, 'OpenCode inventory vs'), cpu: figure(r, 'the same, CPU') }),
  },
  {
    figure: 'Codex scan',
    reference: 'the App Server paging the same store',
    bench: 'codex-scan-2k',
    op: '≤',
    target: 1.2,
    unit: '×',
    on: 'wall',
    read: (r) => ({ wall: r.ratio ?? null, cpu: null }),
  },
  {
    figure: 'cold start → first paint',
    reference: 'minimal blessed app',
    bench: 'cold-start',
    op: '≤',
    target: 1.5,
    unit: '×',
    on: 'cpu',
    read: (r) => ({
      wall: figure(r, 'cold start → first paint vs a minimal blessed app, wall'),
      cpu: figure(r, 'cold start → first paint vs a minimal blessed app, CPU'),
    }),
  },
  {
    figure: 'peak RSS, 100k sessions, app',
    reference: '—',
    bench: 'tui-100k',
    op: '≤',
    target: 200,
    unit: 'MB',
    on: 'value',
    read: (r) => ({ value: r.extra?.peakRssBytes == null ? null : r.extra.peakRssBytes / 1e6 }),
  },
  {
    figure: 'peak RSS, 100k sessions, CLI scan --json',
    reference: '—',
    bench: 'cli-scan-100k',
    op: '≤',
    target: 250,
    unit: 'MB',
    on: 'value',
    read: (r) => ({ value: figure(r, 'peak RSS, CLI scan --json, 100k pi sessions') }),
  },
  {
    figure: '1k pi sessions deleted',
    reference: '—',
    bench: 'pi-delete-1k',
    op: '≤',
    target: 400,
    unit: 'ms',
    on: 'cpu',
    read: (r) => ({ wall: figure(r, 'deleting 1,000 pi sessions (wall)'), cpu: figure(r, 'deleting 1,000 pi sessions (CPU') }),
  },
  {
    figure: 'restore 1 GB',
    reference: 'age -d | zstd -d | tar -x',
    bench: 'backup-1g',
    op: '≥',
    target: 0.8,
    unit: '×',
    on: 'cpu',
    // Throughput ratios: the reference's time over ours (higher is better).
    read: (r) => {
      const c = r.extra?.restore?.cpuMs;
      return { wall: r.extra?.restore?.throughputRatio ?? null, cpu: c?.ours && c.reference ? c.reference / c.ours : null };
    },
  },
  {
    figure: 'backup 1 GB',
    reference: 'tar | zstd -3 | age',
    bench: 'backup-1g',
    op: '≥',
    target: 0.6,
    unit: '×',
    on: 'wall',
    read: (r) => ({ wall: r.extra?.backup?.throughputRatio ?? null, cpu: null }),
  },
  {
    figure: 'worst key during a 100k scan',
    reference: '—',
    bench: 'tui-100k',
    op: '≤',
    target: 50,
    unit: 'ms',
    on: 'value',
    read: (r) => ({ value: r.runs?.during?.length ? Math.max(...r.runs.during) : null }),
  },
];

/** Issue #30's table as lines, from this run's results by bench name; a row whose bench did not run says so. */
export function issueTableLines(results) {
  const cell = (v, unit) => fmtValue(v, unit);
  const rows = ISSUE_TABLE.map((row) => {
    const res = row.bench ? results.get(row.bench) : undefined;
    const got = res ? row.read(res) : null;
    const value = got ? (row.on === 'value' ? got.value : got[row.on]) : null;
    const status = !row.bench
      ? 'no bench'
      : !res
        ? 'not run'
        : verdict({ value, op: row.op, target: row.target }) === 'within target'
          ? 'pass'
          : value == null
            ? 'n/a'
            : 'FAIL';
    const measured = got ? (row.on === 'value' ? cell(got.value, row.unit) : `${cell(got.wall, row.unit)} wall, ${cell(got.cpu, row.unit)} CPU`) : '—';
    const target = `${row.op} ${row.unit === '×' ? `${row.target}×` : `${row.target} ${row.unit}`}${row.on === 'value' ? '' : ` ${row.on === 'cpu' ? 'CPU' : 'wall'}`}`;
    // A pipeline's bars would split a markdown cell.
    return [row.figure, row.reference.replaceAll('|', '\\|'), measured, target, status];
  });
  const head = ['figure', 'reference', 'this run', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}
