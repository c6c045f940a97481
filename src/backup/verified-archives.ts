// Archives this process has just read whole and found matching their
// manifests (every payload's size and SHA-256), so that a restore's second
// read of the same archive — `backups restore` and the Backups screen check
// it, then restore it — need not hash every payload again. The binding is
// the open file (device, inode, size, mtime, ctime, path) and the payload
// key: every byte of the second read is still authenticated by
// ChaCha20-Poly1305 under that key (a changed, truncated or reordered byte
// fails as before), and a different archive has a different key, so the
// plaintext is the very one whose hashes were checked. Sizes, names and
// the manifest are checked again all the same. In memory only, and briefly.

import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';

const TTL_MS = 15 * 60_000;
const KEPT = 4;
const verified = new Map<string, number>();

/** The archive's identity for this process: never the key itself, only a digest of it. */
export function archiveIdentity(path: string, st: Stats, payloadKey: Buffer): string {
  const key = createHash('sha256').update(payloadKey).digest('hex');
  return JSON.stringify([path, st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, key]);
}

export function markVerified(id: string): void {
  verified.delete(id);
  verified.set(id, Date.now());
  while (verified.size > KEPT) verified.delete(verified.keys().next().value!);
}

export function wasVerified(id: string): boolean {
  const at = verified.get(id);
  if (at === undefined) return false;
  if (Date.now() - at <= TTL_MS) return true;
  verified.delete(id);
  return false;
}
