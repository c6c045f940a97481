// A whole short process timed as the kernel accounts it: wall time and CPU
// (user + sys from wait4's resource usage, in µs) of `file args…`, stdout to
// /dev/null. python3's os.wait4 gives the child's rusage exactly; without
// python3, /usr/bin/time's 10 ms figures stand in.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WAIT4 = `import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open('/dev/null', os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(st), (time.monotonic() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss * 1024)`;

let python;
function pythonOrNull() {
  if (python === undefined) {
    python = null;
    for (const d of (process.env.PATH ?? '').split(':'))
      if (d && existsSync(join(d, 'python3'))) {
        python = join(d, 'python3');
        break;
      }
  }
  return python;
}

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ').slice(0, 200)} exited ${code}: ${err.trim().slice(0, 300)}`))));
  });
}

/** { wallMs, cpuMs, maxRssBytes } of one run of `file` (an absolute path) with `args`, stdout to /dev/null; rejects when it exits non-zero. maxRssBytes is null without python3. */
export async function timeChild(file, args, env) {
  const py = pythonOrNull();
  if (py) {
    const [code, wallMs, cpuMs, maxRssBytes] = (await run(py, ['-c', WAIT4, file, ...args], env)).trim().split(' ').map(Number);
    if (code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${code}`);
    return { wallMs, cpuMs, maxRssBytes };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cleanerx-bench-cpu-'));
  try {
    const started = process.hrtime.bigint();
    await run('/usr/bin/time', ['-f', '%U %S', '-o', join(dir, 't'), file, ...args], env);
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const [u, s] = readFileSync(join(dir, 't'), 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { wallMs, cpuMs: (u + s) * 1000, maxRssBytes: null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
