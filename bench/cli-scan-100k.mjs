// cli-scan-100k: the peak RSS of `cleanerx scan --agent pi --json` on
// tui-100k's 100,000-session pi store (issue #30's "peak RSS, CLI scan
// --json" row), the JSON report to /dev/null, and of the text listing
// (`scan --agent pi`) beside it. The figure is the kernel's (wait4's
// ru_maxrss, lib/child-cpu.mjs); RUNS runs each, the median reported.

import { timeChild } from './lib/child-cpu.mjs';
import { CLI, isolatedEnvFor, median } from './lib/util.mjs';
import { store } from './tui-100k.mjs';

export const name = 'cli-scan-100k';
export const target = null;
const RUNS = 3;
const RSS_TARGET_MB = 250;

export async function run({ log }) {
  const root = await store(log);
  const env = await isolatedEnvFor(root);
  const rows = { json: [], text: [] };
  const cpu = { json: [], text: [] };
  for (let i = 0; i < RUNS; i++)
    for (const [kind, args] of [
      ['json', [CLI, 'scan', '--agent', 'pi', '--json']],
      ['text', [CLI, 'scan', '--agent', 'pi']],
    ]) {
      const r = await timeChild(process.execPath, args, env);
      if (r.maxRssBytes == null) throw new Error('cli-scan-100k needs python3 (os.wait4) for the peak RSS.');
      rows[kind].push(r.maxRssBytes / 1e6);
      cpu[kind].push(r.cpuMs);
    }
  const json = median(rows.json);
  const text = median(rows.text);
  const lines = [
    `scan --agent pi --json: peak RSS ${json.toFixed(0)} MB median (runs ${rows.json.map((x) => x.toFixed(0)).join(', ')}), CPU ${median(cpu.json).toFixed(0)} ms`,
    `scan --agent pi (text): peak RSS ${text.toFixed(0)} MB median (runs ${rows.text.map((x) => x.toFixed(0)).join(', ')}), CPU ${median(cpu.text).toFixed(0)} ms`,
  ];
  for (const l of lines) log(`  ${l}`);
  return {
    name,
    ours: null,
    reference: null,
    ratio: null,
    target,
    runs: { ours: rows.json, reference: [] },
    figures: [
      { label: 'peak RSS, CLI scan --json, 100k pi sessions', value: json, unit: 'MB', op: '≤', target: RSS_TARGET_MB },
      { label: 'peak RSS, CLI scan (text), 100k pi sessions', value: text, unit: 'MB', op: '≤', target: RSS_TARGET_MB },
    ],
    extra: { lines, peakRssMB: json },
  };
}
