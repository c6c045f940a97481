// A few fields of one JSONL line, read from its bytes without building the
// object: the line is checked against JSON's grammar from its first byte to
// its last (so a truncated line, a stray control byte or a second value is
// refused exactly as JSON.parse refuses it), and a wanted key keeps its last
// occurrence (JSON.parse's rule for a repeated key). Keys and values that hold
// an escape are decoded by JSON.parse of that one token; where the scan cannot
// be sure (nesting deeper than it follows) it says so and the caller parses
// the line. Bytes that are not UTF-8 become U+FFFD in a string, as they do
// when the line is decoded first: they never end a string, so no structure
// moves (test/unit/json-fields.test.ts holds the scan to JSON.parse).

/** What `scan` found: the line is one JSON object (its fields read), no JSON object at all, or unsure. */
export const LINE_OBJECT = 1;
export const LINE_NOT_OBJECT = 0;
export const LINE_UNSURE = -1;

/** A field's kind: absent, or the JSON type of its (last) value. */
export const KIND_NONE = 0;
export const KIND_STRING = 1;
export const KIND_NUMBER = 2;
export const KIND_OBJECT = 3;
export const KIND_ARRAY = 4;
export const KIND_LITERAL = 5;

/** Deeper than this the scan does not follow the nesting: the caller parses the line. */
const MAX_DEPTH = 512;
const INVALID = -1;
const UNSURE = -2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads the top-level `keys` of a line and, inside the top-level object
 * value of `nestedKey` (one of `keys`), its `nested` keys. A field is
 * addressed by its index: the top-level keys first, then the nested ones.
 */
export class JsonLineFields {
  private readonly names: Buffer[];
  private readonly nestedAt: number;
  private readonly topCount: number;
  /** Per field: kind, start, end (the token's bytes), whether a string token holds an escape. */
  private readonly kinds: Int8Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly escaped: Uint8Array;
  private b: Buffer = Buffer.alloc(0);
  private end = 0;
  /** Set by `str`: the string just scanned holds a backslash. */
  private strEscaped = false;

  constructor(keys: readonly string[], nestedKey: string, nested: readonly string[]) {
    this.names = [...keys, ...nested].map((k) => Buffer.from(k, 'utf8'));
    this.topCount = keys.length;
    this.nestedAt = keys.indexOf(nestedKey);
    const n = this.names.length;
    this.kinds = new Int8Array(n);
    this.starts = new Int32Array(n);
    this.ends = new Int32Array(n);
    this.escaped = new Uint8Array(n);
  }

  /** Scans `b[start, end)` (one line, no newline in it). */
  scan(b: Buffer, start: number, end: number): number {
    this.b = b;
    this.end = end;
    this.kinds.fill(KIND_NONE);
    let p = this.ws(start);
    // An array, a scalar or nothing: parseObject's answer is the same whether or not it is valid JSON.
    if (p >= end || b[p] !== 0x7b) return LINE_NOT_OBJECT;
    p = this.object(p, 1, 0, this.topCount);
    if (p === UNSURE) return LINE_UNSURE;
    if (p < 0 || this.ws(p) !== end) return LINE_NOT_OBJECT;
    return LINE_OBJECT;
  }

  kind(field: number): number {
    return this.kinds[field]!;
  }

  /** A string field's value, decoded as JSON.parse decodes it; undefined when the field is not a string. */
  string(field: number): string | undefined {
    if (this.kinds[field] !== KIND_STRING) return undefined;
    const s = this.starts[field]!;
    const e = this.ends[field]!;
    return this.escaped[field] ? (JSON.parse(this.b.toString('utf8', s, e)) as string) : this.b.toString('utf8', s + 1, e - 1);
  }

  /** A number field's value (JSON's number grammar is a subset of Number's, rounded the same); undefined otherwise. */
  number(field: number): number | undefined {
    return this.kinds[field] === KIND_NUMBER ? Number(this.b.toString('latin1', this.starts[field], this.ends[field])) : undefined;
  }

  /** The bytes of a field's token (a string's quotes included). */
  span(field: number): [number, number] {
    return [this.starts[field]!, this.ends[field]!];
  }

  private ws(p: number): number {
    const b = this.b;
    while (p < this.end) {
      const c = b[p]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
      p++;
    }
    return p;
  }

  /** The object at `p` (its `{`); keys matched against fields [from, to) when to > from. Returns the end, INVALID or UNSURE. */
  private object(p: number, depth: number, from: number, to: number): number {
    const b = this.b;
    p = this.ws(p + 1);
    if (p < this.end && b[p] === 0x7d) return p + 1;
    for (;;) {
      if (p >= this.end || b[p] !== QUOTE) return INVALID;
      const keyStart = p;
      p = this.str(p);
      if (p < 0) return p;
      const field = to > from ? this.keyField(keyStart, p, from, to) : -1;
      p = this.ws(p);
      if (p >= this.end || b[p] !== 0x3a) return INVALID;
      p = this.ws(p + 1);
      if (field === this.nestedAt && field >= 0) {
        // A repeated nested key replaces the whole object, as in JSON.parse: the earlier one's fields go.
        this.kinds.fill(KIND_NONE, this.topCount);
      }
      const valueStart = p;
      p = field === this.nestedAt && field >= 0 && p < this.end && b[p] === 0x7b ? this.nestedObject(p, depth + 1) : this.value(p, depth + 1);
      if (p < 0) return p;
      if (field >= 0) this.record(field, valueStart, p);
      p = this.ws(p);
      if (p >= this.end) return INVALID;
      const c = b[p];
      if (c === 0x7d) return p + 1;
      if (c !== 0x2c) return INVALID;
      p = this.ws(p + 1);
    }
  }

  private nestedObject(p: number, depth: number): number {
    if (depth > MAX_DEPTH) return UNSURE;
    return this.object(p, depth, this.topCount, this.names.length);
  }

  /** Which of fields [from, to) the key token [s, e) names, or -1. */
  private keyField(s: number, e: number, from: number, to: number): number {
    const b = this.b;
    if (this.strEscaped) {
      // An escaped key may still spell a wanted one ("typ\u0065"): decode it as JSON.parse would.
      const key = Buffer.from(JSON.parse(b.toString('utf8', s, e)) as string, 'utf8');
      for (let f = from; f < to; f++) if (key.equals(this.names[f]!)) return f;
      return -1;
    }
    const len = e - s - 2;
    for (let f = from; f < to; f++) {
      const name = this.names[f]!;
      if (name.length !== len) continue;
      let k = 0;
      while (k < len && b[s + 1 + k] === name[k]) k++;
      if (k === len) return f;
    }
    return -1;
  }

  private record(field: number, s: number, e: number): void {
    const c = this.b[s];
    this.kinds[field] =
      c === QUOTE ? KIND_STRING : c === 0x7b ? KIND_OBJECT : c === 0x5b ? KIND_ARRAY : c === 0x74 || c === 0x66 || c === 0x6e ? KIND_LITERAL : KIND_NUMBER;
    this.starts[field] = s;
    this.ends[field] = e;
    this.escaped[field] = c === QUOTE && this.strEscaped ? 1 : 0;
  }

  private value(p: number, depth: number): number {
    if (p >= this.end) return INVALID;
    const c = this.b[p]!;
    if (c === QUOTE) return this.str(p);
    if (c === 0x7b || c === 0x5b) {
      if (depth > MAX_DEPTH) return UNSURE;
      return c === 0x7b ? this.object(p, depth, 0, 0) : this.array(p, depth);
    }
    if (c === 0x74) return this.word(p, 'true');
    if (c === 0x66) return this.word(p, 'false');
    if (c === 0x6e) return this.word(p, 'null');
    return this.num(p);
  }

  private array(p: number, depth: number): number {
    const b = this.b;
    p = this.ws(p + 1);
    if (p < this.end && b[p] === 0x5d) return p + 1;
    for (;;) {
      p = this.value(p, depth + 1);
      if (p < 0) return p;
      p = this.ws(p);
      if (p >= this.end) return INVALID;
      const c = b[p];
      if (c === 0x5d) return p + 1;
      if (c !== 0x2c) return INVALID;
      p = this.ws(p + 1);
    }
  }

  /** The string token at `p` (its opening quote): the index past its closing quote, or INVALID. */
  private str(p: number): number {
    const b = this.b;
    const end = this.end;
    this.strEscaped = false;
    for (let i = p + 1; i < end; i++) {
      const c = b[i]!;
      if (c === QUOTE) return i + 1;
      if (c < 0x20) return INVALID;
      if (c !== BACKSLASH) continue;
      this.strEscaped = true;
      if (++i >= end) return INVALID;
      const x = b[i]!;
      if (x === 0x75) {
        if (i + 4 >= end) return INVALID;
        for (let k = 1; k <= 4; k++) if (!isHex(b[i + k]!)) return INVALID;
        i += 4;
      } else if (!(x === QUOTE || x === BACKSLASH || x === 0x2f || x === 0x62 || x === 0x66 || x === 0x6e || x === 0x72 || x === 0x74)) return INVALID;
    }
    return INVALID;
  }

  private word(p: number, w: string): number {
    if (p + w.length > this.end) return INVALID;
    for (let k = 0; k < w.length; k++) if (this.b[p + k] !== w.charCodeAt(k)) return INVALID;
    return p + w.length;
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  private num(p: number): number {
    const b = this.b;
    const end = this.end;
    if (p < end && b[p] === 0x2d) p++;
    if (p >= end) return INVALID;
    if (b[p] === 0x30) p++;
    else if (isDigit(b[p]!)) while (p < end && isDigit(b[p]!)) p++;
    else return INVALID;
    if (p < end && b[p] === 0x2e) {
      p++;
      if (p >= end || !isDigit(b[p]!)) return INVALID;
      while (p < end && isDigit(b[p]!)) p++;
    }
    if (p < end && (b[p] === 0x65 || b[p] === 0x45)) {
      p++;
      if (p < end && (b[p] === 0x2b || b[p] === 0x2d)) p++;
      if (p >= end || !isDigit(b[p]!)) return INVALID;
      while (p < end && isDigit(b[p]!)) p++;
    }
    return p;
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
