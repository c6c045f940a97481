// JSON text of a record with long lists (an archive manifest, a restore
// journal: one element per file, 200,000 of them and more) produced in
// pieces of about 64 KiB, so that the whole text never exists at once; the
// pieces joined are exactly JSON.stringify(record).

/** A list written element by element like an array (an array is one): e.g. a packed table that makes each element on demand. */
export interface JsonList<T> {
  readonly length: number;
  at(i: number): T | undefined;
}

const isList = (v: unknown): v is JsonList<unknown> =>
  Array.isArray(v) ||
  (typeof v === 'object' && v !== null && typeof (v as JsonList<unknown>).at === 'function' && typeof (v as JsonList<unknown>).length === 'number');

/** Pieces are gathered to about this many characters before they are handed on. */
const PIECE_CHARS = 64 * 1024;

/** JSON.stringify(record) in pieces, each array-valued field (entries, dirs, …) one element at a time; a JsonList field as if it were its array. */
export function* jsonPieces(record: object): Generator<string> {
  let text = '{';
  let first = true;
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!isList(value)) {
      text += JSON.stringify(value);
      continue;
    }
    text += '[';
    for (let i = 0; i < value.length; i++) {
      text += (i ? ',' : '') + JSON.stringify(value.at(i));
      if (text.length >= PIECE_CHARS) {
        yield text;
        text = '';
      }
    }
    text += ']';
  }
  yield `${text}}`;
}

/** The UTF-8 length of JSON.stringify(record), measured piece by piece. */
export function jsonBytes(record: object): number {
  let n = 0;
  for (const piece of jsonPieces(record)) n += Buffer.byteLength(piece);
  return n;
}
