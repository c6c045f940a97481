// One line of an agent's JSONL store: a JSON object, or nothing (malformed
// lines, arrays and scalars are skipped, as the agents themselves do).

export function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
