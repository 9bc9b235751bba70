"""The local runner's `python` / `infx` shim: ask the fork server (tests/lib/fork_server.py) to run it.

Run by the interpreter with `-I -S` and only builtin modules imported, so the shim itself costs
a bare interpreter start. It sends its argv, working directory, umask, ignored signals,
environment and open descriptors (SCM_RIGHTS) to the server, forwards the signals it receives
to the process the server forked, and ends as that process ended (its exit code, or killed by
its signal). Without a server it execs the real interpreter as the plain shims do.
"""

import _signal
import _socket
import os
import sys

SOCKET, PYTHON, FAKE_PIP = "", "", ""  # the runner writes the shim with this line filled in
_FORWARDED = (1, 2, 3, 10, 12, 14, 15)  # HUP INT QUIT USR1 USR2 ALRM TERM


def _direct(mode: str, args: list) -> None:
    if mode == "infx":
        args = ["-P", "-m", "infx", *args]
    elif args[:3] == ["-m", "pip", "install"]:
        args = ["-P", FAKE_PIP, *args[3:]]
    os.execv(PYTHON, [PYTHON, *args])


def _main() -> None:
    mode = "infx" if os.path.basename(sys.argv[0]) == "infx" else "python"
    args = sys.argv[1:]
    fds = []
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        _direct(mode, args)
    for name in names:
        try:
            if os.get_inheritable(int(name)):  # what an exec would pass on (not this script's own file)
                fds.append(int(name))
        except OSError:
            continue
    fds.sort()
    if not {0, 1, 2} <= set(fds):
        _direct(mode, args)  # a closed std stream: the real interpreter decides what that means
    try:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.connect(SOCKET)
    except OSError:
        _direct(mode, args)
    ignored = [s for s in range(1, 65) if s not in (9, 19, 13, 25) and _ignored(s)]
    umask = os.umask(0)
    os.umask(umask)
    fields = [mode, os.getcwd(), str(umask), ",".join(map(str, ignored)), ",".join(map(str, fds)),
              str(len(args)), *args, *(f"{k}={v}" for k, v in os.environ.items())]
    body = b"\0".join(os.fsencode(f) for f in fields)
    message = len(body).to_bytes(8, "little") + body
    ancillary = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
    sent = conn.sendmsg([message[:1 << 15]], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, ancillary)])
    conn.sendall(message[sent:])
    child = []
    pending = []

    def forward(sig, _frame):
        if child:
            os.kill(child[0], sig)
        else:
            pending.append(sig)

    for sig in _FORWARDED:
        if sig not in ignored:
            _signal.signal(sig, forward)
    reply = b""
    while True:
        chunk = conn.recv(64)
        if not chunk:
            os._exit(127)  # the server died: a lost process, never a success
        reply += chunk
        while b"\n" in reply:
            line, _, reply = reply.partition(b"\n")
            kind, value = line[:1], int(line[1:])
            if kind == b"P":
                child.append(value)
                for sig in pending:
                    os.kill(value, sig)
            elif kind == b"S":
                _signal.signal(value, _signal.SIG_DFL)
                os.kill(os.getpid(), value)
                os._exit(128 + value)
            else:
                os._exit(value)


def _ignored(sig: int) -> bool:
    try:
        return _signal.getsignal(sig) == _signal.SIG_IGN
    except (ValueError, OSError):
        return False


_main()
