// Issue #18's figures, each against its target, from what a bench returned.
// A bench may return `figures` itself ([{ label, value, unit, op, target }]);
// for the others the figure is read from the fields it already returns.
// `op` is '≤' (lower is better) or '≥'; `unit` is '×', 'ms' or 'MB'.

const ratio = (label, target) => (r) => [{ label, value: r.ratio, unit: '×', op: '≤', target }];

const DERIVED = {
  'pi-scan-10k': ratio('pi inventory vs a plain reader', 1.5),
  'claude-scan-10k': ratio('Claude inventory vs a plain walk', 1.5),
  'opencode-5k': (r) => [
    {
      label: 'OpenCode inventory vs a plain SELECT',
      value: r.extra?.scanOursMs != null && r.extra?.scanReferenceMs ? r.extra.scanOursMs / r.extra.scanReferenceMs : null,
      unit: '×',
      op: '≤',
      target: 2,
    },
  ],
  'cold-start': ratio('cold start vs a minimal blessed app', 1.6),
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
