// Runs one OS key ring call in its own process, so a key ring that hangs
// (a locked Secret Service waiting for a desktop prompt that an SSH session
// never shows) can be killed without taking cleanerx with it. Reads the
// secret for `set` from stdin, writes one JSON line to stdout.

const [op, service, account] = process.argv.slice(2);

function reply(v: { ok: boolean; value?: string | null; reason?: string }): void {
  process.stdout.write(JSON.stringify(v) + '\n');
}

async function readStdin(): Promise<string> {
  let s = '';
  for await (const chunk of process.stdin) s += String(chunk);
  return s;
}

async function main(): Promise<void> {
  if (process.env.CLEANERX_TEST_MODE === '1' && process.env.CLEANERX_TEST_KEYRING_HANG === '1') {
    // A key ring that never answers: the parent must kill this process.
    setInterval(() => undefined, 1 << 30);
    return;
  }
  if (!op || !service || !account) return reply({ ok: false, reason: 'usage: keyring-child <probe|get|set|delete> <service> <account>' });
  const { Entry } = await import('@napi-rs/keyring');
  const entry = new Entry(service, account);
  try {
    if (op === 'probe') {
      // A throw-away entry: set, read back, delete.
      const token = `probe-${process.pid}-${Date.now()}`;
      entry.setPassword(token);
      const back = entry.getPassword();
      entry.deletePassword();
      return reply(back === token ? { ok: true } : { ok: false, reason: 'the key ring did not return what was stored' });
    }
    if (op === 'get') return reply({ ok: true, value: entry.getPassword() ?? null });
    if (op === 'set') {
      entry.setPassword(await readStdin());
      return reply({ ok: true });
    }
    if (op === 'delete') {
      entry.deletePassword();
      return reply({ ok: true });
    }
    reply({ ok: false, reason: `unknown operation ${op}` });
  } catch (e) {
    reply({ ok: false, reason: (e as Error).message.split('\n')[0]!.slice(0, 300) });
  }
}

void main();
