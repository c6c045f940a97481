// JSON.parse of a file cleanerx may not have written (plan files, journals,
// catalogs, settings, scan history): a size bound alone does not bound the
// cost, since 60 MB of nested `[` makes V8 build gigabytes before refusing it.
// One linear pass counts the nesting outside strings first.

export const MAX_JSON_DEPTH = 64;

export class JsonTooDeepError extends SyntaxError {}

/** JSON.parse, after refusing text nested deeper than `maxDepth` (at the first byte past it, in one pass). */
export function parseBoundedJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new JsonTooDeepError(`JSON nested deeper than ${maxDepth} levels (at character ${i})`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return JSON.parse(text) as unknown;
}
