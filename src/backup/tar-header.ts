// The tar headers the archive writer emits: POSIX ustar, with a pax `path`
// record for a name that is long or not printable ASCII, every file 0600
// (the manifest keeps the real mode) and owned by 0:0.

export const BLOCK = 512;
export const pad512 = (n: number): number => (BLOCK - (n % BLOCK)) % BLOCK;

function octal(h: Buffer, off: number, width: number, value: number): void {
  h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, off, width, 'latin1');
}

function ustarHeader(name: string, prefix: string, size: number, mtime: number, type: '0' | 'x'): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, 0o600);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  if (size < 8 ** 11) octal(h, 124, 12, size);
  else {
    // base-256 (GNU) for 8 GiB and more
    h[124] = 0x80;
    let v = size;
    for (let i = 135; i > 124; i--, v = Math.floor(v / 256)) h[i] = v % 256;
  }
  octal(h, 136, 12, mtime);
  h.fill(0x20, 148, 156);
  h.write(type, 156, 1, 'latin1');
  h.write('ustar\u000000', 257, 8, 'latin1');
  octal(h, 329, 8, 0);
  octal(h, 337, 8, 0);
  if (prefix) h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const n = Buffer.byteLength(body);
  let digits = 1;
  while (String(n + digits).length !== digits) digits++;
  return `${n + digits}${body}`;
}

/** The header block(s) of a regular 0600 file entry. */
export function tarHeader(path: string, size: number, mtime: number): Buffer {
  if (/^[\x20-\x7e]+$/.test(path)) {
    if (path.length <= 100) return ustarHeader(path, '', size, mtime, '0');
    for (let i = path.indexOf('/'); i > 0 && i <= 155; i = path.indexOf('/', i + 1)) {
      if (path.length - i - 1 <= 100) return ustarHeader(path.slice(i + 1), path.slice(0, i), size, mtime, '0');
    }
  }
  const pax = Buffer.from(paxRecord('path', path), 'utf8');
  return Buffer.concat([
    ustarHeader('PaxHeader', '', pax.length, mtime, 'x'),
    pax,
    Buffer.alloc(pad512(pax.length)),
    ustarHeader('PaxHeader', '', size, mtime, '0'),
  ]);
}
