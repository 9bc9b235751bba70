"""A fork server for the local workflow runner: `python -m infx …` steps without the interpreter start-up.

Every `run:` step of a loop test starts `infx` / `python -m infx.…` processes, and each paid
the interpreter's start-up and the import of infx's dependencies (PyGithub, requests, yaml,
jsonschema, click) again. This process imports those dependencies once — never infx itself —
and listens on a Unix socket. The runner's `python`/`infx` shims (tests/lib/fork_client.py)
send it their argv, working directory, environment, umask and open file descriptors; it forks,
and the child turns itself into the process a fresh interpreter would have been: the
descriptors at their numbers, cwd, environment, sys.path computed from PYTHONPATH / -P /
PYTHONSAFEPATH as CPython 3.11 computes it (the job's own site folder first, so infx is imported
from the job's installed copy, never from this process), `sitecustomize` from that path, fresh
std streams, default signal handlers, a reseeded `random`, `-m` run by runpy as the interpreter
runs it, then atexit handlers, stream flushes and the exit status. Whatever it cannot reproduce
exactly (unknown interpreter flags, `-c`, scripts other than fake pip, modules outside infx,
other PYTHON* settings, another locale, a user site folder, a path entry that would shadow a
preloaded module) it hands to the real interpreter with `execve`, from the child, with the same
descriptors, cwd and environment. Started by tests/lib/actions_runner.py once per test process.
"""

from __future__ import annotations

import os
import sys

# the script's folder (tests/lib) is not on a job's path: drop it before importing anything
_SCRIPT_DIR = sys.path.pop(0)

import atexit  # noqa: E402
import gc  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import site  # noqa: E402
import socket  # noqa: E402

# what a fresh interpreter's path is made of after PYTHONPATH (stdlib, site-packages, .pth entries)
BASE_PATH = list(sys.path)
FAKE_PIP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_pip.py")
PRELOAD = ("github", "requests", "urllib3", "yaml", "jsonschema", "click", "argparse", "csv", "dataclasses",
           "datetime", "decimal", "difflib", "email.message", "email.utils", "gzip", "hashlib", "hmac", "html",
           "http.client", "json", "pathlib", "secrets", "shlex", "shutil", "subprocess", "tarfile", "tempfile",
           "typing", "unicodedata", "urllib.parse", "zipfile", "zlib", "random", "runpy", "io", "time",
           "pkgutil", "netrc", "cmarkgfm")
# PYTHON* variables the child reproduces; any other one makes it exec the real interpreter
_UNDERSTOOD_ENV = {"PYTHONPATH", "PYTHONSAFEPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE"}
_CATCHABLE = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _locale_of(env: dict[str, str]) -> str:
    return env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""


SERVER_LOCALE = _locale_of(dict(os.environ))
LOG = os.environ.pop("FORK_SERVER_LOG", "")
_PRELOADED: set[str] = set()  # top-level modules imported before the first fork (for the log)


# ---- the protocol ---------------------------------------------------------------------------------

def encode_request(mode: str, argv: list[str], cwd: str, umask: int, ignored: list[int],
                   env: dict[str, str], fd_numbers: list[int]) -> bytes:
    """The request as NUL-separated fields (the client writes the same layout without importing this)."""
    fields = [mode, cwd, str(umask), ",".join(map(str, ignored)), ",".join(map(str, fd_numbers)),
              str(len(argv)), *argv, *(f"{k}={v}" for k, v in env.items())]
    body = b"\0".join(os.fsencode(f) for f in fields)
    return len(body).to_bytes(8, "little") + body


def decode_request(body: bytes) -> dict:
    fields = [os.fsdecode(f) for f in body.split(b"\0")]
    mode, cwd, umask, ignored, fd_numbers, count = fields[:6]
    argv = fields[6:6 + int(count)]
    env = dict(item.split("=", 1) for item in fields[6 + int(count):] if "=" in item)
    return {"mode": mode, "cwd": cwd, "umask": int(umask),
            "ignored": [int(s) for s in ignored.split(",") if s],
            "fd_numbers": [int(s) for s in fd_numbers.split(",") if s], "argv": argv, "env": env}


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 256)
    while len(data) < 8:
        more = conn.recv(1 << 16)
        if not more:
            raise EOFError("request cut short")
        data += more
    size = int.from_bytes(data[:8], "little")
    body = bytearray(data[8:])
    while len(body) < size:
        more = conn.recv(size - len(body))
        if not more:
            raise EOFError("request cut short")
        body += more
    return decode_request(bytes(body)), list(fds)


# ---- what the interpreter would do ----------------------------------------------------------------

def plan(request: dict) -> dict | None:
    """How to run the request in a forked child, or None: exec the real interpreter."""
    env = request["env"]
    if any(k.startswith("PYTHON") and k not in _UNDERSTOOD_ENV for k in env):
        return None
    if _locale_of(env) != SERVER_LOCALE:
        return None
    args = list(request["argv"])
    safe = bool(env.get("PYTHONSAFEPATH"))
    dont_write = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    if request["mode"] == "infx":  # the console script: `python -P -m infx ARGS`
        return {"module": "infx", "script": None, "args": args, "safe": True, "dont_write": dont_write,
                "orig": ["-P", "-m", "infx", *args]}
    orig = list(args)
    if args[:3] == ["-m", "pip", "install"]:  # the shim's fake pip: `python -P fake_pip.py ARGS`
        return {"module": None, "script": FAKE_PIP, "args": args[3:], "safe": True, "dont_write": dont_write,
                "orig": ["-P", FAKE_PIP, *args[3:]]}
    while args and args[0] in ("-P", "-B"):
        safe = safe or args[0] == "-P"
        dont_write = dont_write or args[0] == "-B"
        args.pop(0)
    if len(args) < 2 or args[0] != "-m" or args[1].split(".", 1)[0] != "infx":
        return None
    return {"module": args[1], "script": None, "args": args[2:], "safe": safe, "dont_write": dont_write,
            "orig": orig}


def job_path(env: dict[str, str], cwd: str, safe: bool, base: list[str]) -> list[str]:
    """sys.path as CPython 3.11 builds it: PYTHONPATH entries (absolute; an empty one is the
    working directory), then the installation's entries, duplicates dropped (site.removeduppaths),
    and for `-m` without -P / PYTHONSAFEPATH the working directory in front."""
    raw = env.get("PYTHONPATH")
    entries = [os.path.normpath(os.path.join(cwd, e)) if e else cwd for e in raw.split(os.pathsep)] if raw else []
    seen: set[str] = set()
    path = []
    for entry in [*entries, *base]:
        if entry not in seen:
            seen.add(entry)
            path.append(entry)
    return path if safe else [cwd, *path]


def _shadows_preloaded(entries: list[str]) -> bool:
    """A job path entry holding a module or package this process already imported (the fresh
    interpreter would import the job's one)."""
    loaded = {name.partition(".")[0] for name in sys.modules}
    for entry in entries:
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names:
            stem, dot, suffix = name.partition(".")
            if stem in loaded and stem != "sitecustomize" and (
                    not dot or suffix.endswith(("py", "pyc", "so")) or os.path.isdir(os.path.join(entry, name))):
                return True
    return False


def _user_site_in_use(env: dict[str, str]) -> bool:
    """The job's interpreter would add a user site folder (this process has none on its path)."""
    if env.get("PYTHONNOUSERSITE") or os.getuid() != os.geteuid():
        return False
    home = env.get("HOME") or os.path.expanduser("~")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return os.path.isdir(os.path.join(home, ".local", "lib", version, "site-packages"))


def _stream(fd: int, write: bool):
    """A std stream as the interpreter creates it (buffered; line buffered on a terminal, stderr always)."""
    import io

    if not _fd_open(fd):
        return None
    model = (sys.__stdout__ if fd == 1 else sys.__stderr__ if fd == 2 else sys.__stdin__)
    buffer = open(fd, "wb" if write else "rb", buffering=-1, closefd=False)
    raw = buffer.raw
    raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]
    text = io.TextIOWrapper(buffer, encoding=model.encoding, errors=model.errors, newline="\n",
                            line_buffering=write and (raw.isatty() or fd == 2))
    text.mode = "w" if write else "r"
    return text


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _log(kind: str, request: dict) -> None:
    """One line per request in $FORK_SERVER_LOG (the server's own setting, never a job's)."""
    if LOG:
        with open(LOG, "a", encoding="utf-8") as out:
            out.write(f"{kind}\t{request['mode']}\t{' '.join(request['argv'])[:200]}\n")


def _exec_real(request: dict) -> None:
    """Hand the request to the real interpreter (the shim's own behaviour)."""
    argv = request["argv"]
    if request["mode"] == "infx":
        argv = ["-P", "-m", "infx", *argv]
    elif argv[:3] == ["-m", "pip", "install"]:
        argv = ["-P", FAKE_PIP, *argv[3:]]
    try:
        os.execve(sys.executable, [sys.executable, *argv], request["env"])
    finally:
        os._exit(127)


def _install_fds(request: dict, fds: list[int]) -> None:
    """The client's descriptors at their own numbers; every other descriptor of this process closed."""
    import fcntl

    wanted = request["fd_numbers"]
    floor = max([*wanted, *fds, 2]) + 1
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in fds]  # out of the targets' way
    for fd in fds:
        os.close(fd)
    for target, fd in zip(wanted, high, strict=True):
        os.dup2(fd, target, inheritable=True)
    keep = set(wanted)
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in keep:
            try:
                os.close(int(name))
            except OSError:
                pass


def become(request: dict, fds: list[int]) -> None:
    """In the forked child: turn into the requested process and exit with its status."""
    for sig in _CATCHABLE:
        signal.signal(sig, signal.SIG_DFL)
    for sig in request["ignored"]:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    _install_fds(request, fds)
    os.umask(request["umask"])
    os.chdir(request["cwd"])
    env = request["env"]
    os.environ.clear()
    os.environ.update(env)
    how = plan(request)
    cwd = os.getcwd()
    path = job_path(env, cwd, how["safe"], BASE_PATH) if how else []
    if how is None or _user_site_in_use(env) or _shadows_preloaded(path[:len(path) - len(BASE_PATH)]):
        _log("exec", request)
        _exec_real(request)
    _log("fork", request)
    # a fresh interpreter from here on: Python's own signal handling, streams, path, state
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if signal.SIGINT not in request["ignored"]:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.stdin, sys.stdout, sys.stderr = _stream(0, False), _stream(1, True), _stream(2, True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.path[:] = path
    sys.path_importer_cache.clear()
    sys.dont_write_bytecode = how["dont_write"]
    sys.orig_argv = [sys.executable, *how["orig"]]
    import random
    import tempfile
    import time

    random.seed()
    tempfile.tempdir = None
    time.tzset()
    sys.modules.pop("sitecustomize", None)
    site.ENABLE_USER_SITE = not env.get("PYTHONNOUSERSITE") and os.getuid() == os.geteuid()
    site.execsitecustomize()
    if site.ENABLE_USER_SITE:
        site.execusercustomize()
    _run(how)


def _run(how: dict) -> None:
    import runpy

    code = 0
    interrupted = False
    try:
        if how["script"]:
            sys.argv = [how["script"], *how["args"]]
            runpy.run_path(how["script"], run_name="__main__")
        else:
            sys.argv = ["-m", *how["args"]]
            runpy._run_module_as_main(how["module"], alter_argv=True)
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException as exc:  # the interpreter prints any other uncaught exception and exits 1
        sys.excepthook(type(exc), exc, exc.__traceback__)
        interrupted = isinstance(exc, KeyboardInterrupt)
        code = 1
    _finish(code, interrupted)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def _finish(code: int, interrupted: bool) -> None:
    """What Py_FinalizeEx does before the process ends: join threads, atexit, flush the streams."""
    if LOG:
        imported = sorted({m.partition(".")[0] for m in sys.modules} - _PRELOADED - {"infx"})
        with open(LOG, "a", encoding="utf-8") as out:
            out.write(f"imported\t{' '.join(imported)}\n")
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    try:
        atexit._run_exitfuncs()
    except SystemExit as exc:
        code = _exit_code(exc.code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            if stream is sys.stdout and code == 0:
                code = 120
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


# ---- the server --------------------------------------------------------------------------------------

def _monitor(conn: socket.socket) -> None:
    """One request: fork the process, tell the client its pid, wait, send its status."""
    status = b"E127\n"
    try:
        request, fds = _receive(conn)
        pid = os.fork()
        if pid == 0:
            conn.close()
            try:
                become(request, fds)
            finally:
                os._exit(127)
        for fd in fds:
            os.close(fd)
        conn.sendall(b"P%d\n" % pid)
        import time
        began = time.monotonic()
        _, raw, usage = os.wait4(pid, 0)
        if LOG:
            _log(f"done {time.monotonic() - began:.3f} {usage.ru_utime:.3f} {usage.ru_stime:.3f}", request)
        status = b"S%d\n" % os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else b"E%d\n" % os.WEXITSTATUS(raw)
    finally:
        try:
            conn.sendall(status)
        except OSError:
            pass
        os._exit(0)


def serve(socket_path: str) -> None:
    if site.USER_SITE in sys.path or "sitecustomize" in sys.modules:
        # what a job's path would not hold could not be taken out of the children again
        sys.stdout.write("unsupported: a user site folder or a sitecustomize in the installation\n")
        return
    for name in PRELOAD:
        __import__(name)
    _PRELOADED.update(name.partition(".")[0] for name in sys.modules)
    if any(name == "infx" or name.startswith("infx.") for name in sys.modules):
        raise SystemExit("fork server: infx was imported by a preloaded module; jobs must import their own")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(128)
    children: set[int] = set()

    def stop(_sig: int, _frame: object) -> None:
        listener.close()
        for child in list(children):  # every fork reaped: its CPU is counted in the session's time
            try:
                os.waitpid(child, 0)
            except ChildProcessError:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    gc.collect()
    gc.freeze()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in ready:  # the test process closed its end (it ended, or stops the server)
            stop(0, None)
        conn, _ = listener.accept()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            listener.close()
            _monitor(conn)
        conn.close()
        children.add(pid)
        while children:
            done, _ = os.waitpid(-1, os.WNOHANG)
            if not done:
                break
            children.discard(done)


if __name__ == "__main__":
    serve(sys.argv[1])
