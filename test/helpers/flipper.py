# Exchanges two paths with renameat2(RENAME_EXCHANGE) in a tight loop, as a
# hostile local process racing a cleanup would. Usage:
#   flipper.py <a> <b> <ready-file> [<trigger-path>...]
# Writes <ready-file> once running; with trigger paths, starts exchanging as
# soon as any of them no longer exists (so a run is already under way); a
# trigger written +<path> fires once that path exists instead.
# On SIGTERM it stops, exchanges once more if needed so that both names are
# back where they started, and prints the number of exchanges.
import ctypes, os, signal, sys

AT_FDCWD = -100
RENAME_EXCHANGE = 2
libc = ctypes.CDLL(None, use_errno=True)
a, b, ready = (p.encode() for p in sys.argv[1:4])
triggers = sys.argv[4:]
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
open(ready, 'w').close()
def fired(t):
    return os.path.lexists(t[1:]) if t.startswith('+') else not os.path.lexists(t)


while not stop and triggers and not any(fired(t) for t in triggers):
    pass
n = 0
while not stop:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
        n += 1
while n % 2:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
        n += 1
print(n, flush=True)
