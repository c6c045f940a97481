import { createHash } from 'node:crypto';

const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** RFC 4122 UUIDv5 in the URL namespace: stable project ids from canonical paths. */
export function uuidv5Url(name: string): string {
  const ns = Buffer.from(URL_NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function sessionItemId(sessionId: string): string {
  return `session:${sessionId}`;
}
