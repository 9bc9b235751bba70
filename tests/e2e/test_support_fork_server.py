"""The local runner's fork server (tests/lib/fork_server.py): a forked `infx` is the process a
fresh interpreter would have been, imports the job's own installed infx, and anything it cannot
reproduce runs in the real interpreter."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from lib.actions_runner import Event, LocalRunner, start_fork_server, stop_fork_server, write_shims
from lib.sweep_loop import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CODE_CACHE = Path(__file__).resolve().parents[1] / "lib" / "code_cache"
# a module of a fake installed infx that reports what its process looks like from inside
PROBE = '''
import json, os, random, signal, sys
import infx

def _handler(sig):
    value = signal.getsignal(sig)
    return getattr(value, "__name__", str(value))

with open(3, "w") as extra:  # a descriptor the step's shell opened
    extra.write("fd3")
report = {
    "path": sys.path, "argv": sys.argv, "orig_argv": sys.orig_argv[1:], "cwd": os.getcwd(),
    "infx": infx.__file__, "marker": infx.MARKER, "main": getattr(sys.modules["__main__"], "__file__", None),
    "name": __name__, "dont_write_bytecode": sys.dont_write_bytecode,
    "env": {k: v for k, v in os.environ.items() if k.startswith(("PROBE", "PYTHON"))},
    "umask": os.umask(0o22), "signals": {s: _handler(getattr(signal, s)) for s in ("SIGINT", "SIGPIPE", "SIGTERM", "SIGHUP")},
    "streams": [[s.encoding, s.errors, s.line_buffering, s.name, s.mode] for s in (sys.stdin, sys.stdout, sys.stderr)],
    "stdin": sys.stdin.read(), "sitecustomize": "sitecustomize" in sys.modules,
    "random": random.random(), "pid": os.getpid(),
}
print(json.dumps(report))
sys.stdout.flush()
if os.environ.get("PROBE_EXIT") == "sleep":
    import time
    time.sleep(60)
    raise SystemExit(0)
code = int(os.environ.get("PROBE_EXIT", "0"))
if code < 0:
    os.kill(os.getpid(), -code)
raise SystemExit(code)
'''


def _install(site: Path, marker: str) -> None:
    package = site / "infx"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f"MARKER = {marker!r}\n", encoding="utf-8")
    (package / "__main__.py").write_text(PROBE, encoding="utf-8")
    (package / "probe.py").write_text(PROBE, encoding="utf-8")


def _start(log: Path) -> tuple[subprocess.Popen, str]:
    started = start_fork_server(str(log))
    if started is None:
        pytest.skip("this installation has a user site folder or a sitecustomize: the runner uses plain shims")
    return started


@pytest.fixture
def server(tmp_path):
    log = tmp_path / "fork.log"
    proc, path = _start(log)
    yield path, log
    stop_fork_server(proc)


def _run(shims: Path, cwd: Path, site: Path, command: str, extra_env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess:
    env = {"PATH": f"{shims}:{os.environ['PATH']}", "HOME": str(cwd.parent / "home"), "LANG": "C.UTF-8",
           "PYTHONPATH": f"{site}:{CODE_CACHE}", "PYTHONDONTWRITEBYTECODE": "1", "PROBE_TAG": "x"}
    script = f"set -o pipefail\numask 027\necho in | ( {command} ) 3>{cwd.parent / 'fd3.txt'}\n"
    return subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=cwd, env=env | (extra_env or {}),
                          capture_output=True, text=True, timeout=120)


def _both(tmp_path: Path, socket: str, command: str, extra_env: dict[str, str] | None = None
          ) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """The command under the plain shims and under the fork server's shims, same job folders."""
    results = []
    for name, server in (("plain", None), ("forked", socket)):
        (tmp_path / "home" / "out").unlink(missing_ok=True)
        shims = tmp_path / f"shims-{name}"
        write_shims(shims, server)
        cwd = tmp_path / "work"
        results.append(_run(shims, cwd, tmp_path / "site", command.replace("SHIMS", str(shims)), extra_env))
    return results[0], results[1]


def _same(plain: subprocess.CompletedProcess, forked: subprocess.CompletedProcess) -> dict:
    assert (forked.returncode, forked.stderr) == (plain.returncode, plain.stderr)
    a, b = json.loads(plain.stdout), json.loads(forked.stdout)
    assert a.pop("random") != b.pop("random")  # each process seeds its own random numbers
    assert a.pop("pid") != b.pop("pid")
    for report in (a, b):  # the shim's own folder is the only difference
        report["path"] = [p for p in report["path"] if "shims-" not in p]
    assert b == a
    return b


@pytest.fixture
def job(tmp_path):
    _install(tmp_path / "site", "job-installed")
    (tmp_path / "work" / "sub").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.mark.parametrize(("command", "extra_env"), [
    ("infx a b", {}),
    ("python -m infx.probe --flag", {}),
    ("python -P -m infx.probe", {}),
    ("python -m infx c", {"PYTHONSAFEPATH": "1"}),
    ("cd sub && python3 -B -m infx.probe", {}),
    ("python -m infx.probe", {"PYTHONPATH": "rel::SITE:CACHE:"}),
    ("infx exit-code", {"PROBE_EXIT": "3"}),
    ("infx killed", {"PROBE_EXIT": "-15"}),
    ("trap '' HUP; infx ignores-hup", {}),
])
def test_a_forked_process_is_what_a_fresh_interpreter_would_be(job, server, command, extra_env):
    socket, log = server
    extra_env = {k: v.replace("SITE", str(job / "site")).replace("CACHE", str(CODE_CACHE))
                 for k, v in extra_env.items()}
    plain, forked = _both(job, socket, command, extra_env)
    report = _same(plain, forked)
    assert report["stdin"] == "in\n" and report["umask"] == 0o027 and report["marker"] == "job-installed"
    assert report["name"] == "__main__" and report["sitecustomize"]
    assert (job / "fd3.txt").read_text() == "fd3"
    assert log.read_text().splitlines()[0].startswith("fork\t")  # it ran forked, not in the real interpreter
    if "PROBE_EXIT" in extra_env:
        assert forked.returncode == {"3": 3, "-15": 128 + 15}[extra_env["PROBE_EXIT"]]


def test_a_signal_to_the_shim_reaches_the_forked_process(job, server):
    socket, log = server
    command = 'infx waits & while [ ! -s "$HOME/out" ]; do sleep 0.05; done; kill -TERM $!; wait $!'
    plain, forked = _both(job, socket, command.replace("infx waits", 'infx waits > "$HOME/out"'),
                          {"PROBE_EXIT": "sleep"})
    assert plain.returncode == forked.returncode == 128 + signal.SIGTERM
    assert (plain.stdout, plain.stderr) == (forked.stdout, forked.stderr)
    pid = json.loads((job / "home" / "out").read_text())["pid"]  # the forked one: it ended too
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["fork", "done"], \
        log.read_text()


def test_the_forked_path_and_flags_match_the_interpreter(job, server):
    socket, _log = server
    report = _same(*_both(job, socket, "python -m infx.probe"))
    assert report["path"][:3] == [str(job / "work"), str(job / "site"), str(CODE_CACHE)]
    assert report["infx"] == str(job / "site" / "infx" / "__init__.py")
    assert report["dont_write_bytecode"] is True
    assert report["signals"] == {"SIGINT": "default_int_handler", "SIGPIPE": str(int(signal.SIG_IGN)),
                                 "SIGTERM": str(int(signal.SIG_DFL)), "SIGHUP": str(int(signal.SIG_DFL))}


@pytest.mark.parametrize(("command", "extra_env", "why"), [
    ("python -c 'import infx.probe'", {}, "-c"),
    ("python -X dev -m infx.probe", {}, "a flag it does not reproduce"),
    ("python -m infx.probe", {"PYTHONHASHSEED": "0"}, "another PYTHON setting"),
    ("python -m infx.probe", {"LC_ALL": "C"}, "another locale"),
    ("python -m infx.probe", {"PYTHONPATH": "SHADOW:SITE:CACHE"}, "a path entry shadowing a preloaded module"),
    ("python -m infx.probe", {"USER_SITE": "1"}, "a user site folder in the job's home"),
])
def test_what_it_cannot_reproduce_runs_in_the_real_interpreter(job, server, command, extra_env, why):
    socket, log = server
    shadow = job / "shadow"
    shadow.mkdir()
    (shadow / "yaml.py").write_text("", encoding="utf-8")
    extra_env = dict(extra_env)
    if extra_env.pop("USER_SITE", None):
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        (job / "home" / ".local" / "lib" / version / "site-packages").mkdir(parents=True)
    extra_env = {k: v.replace("SITE", str(job / "site")).replace("CACHE", str(CODE_CACHE))
                 .replace("SHADOW", str(shadow)) for k, v in extra_env.items()}
    plain, forked = _both(job, socket, command, extra_env)
    _same(plain, forked)
    assert log.read_text().splitlines()[0].startswith("exec\t"), why


def test_the_server_never_holds_infx_and_each_job_runs_what_it_installed(tmp_path, monkeypatch):
    """Two jobs of one run install two different infx folders: each job's forked `infx` runs
    its own copy, read from its own site folder (the server imported neither)."""
    log = tmp_path / "fork.log"
    monkeypatch.setenv("INFX_TEST_FORK_SERVER", "1")
    proc, socket = _start(log)
    monkeypatch.setattr("lib.actions_runner.fork_server_socket", lambda: socket)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch=main")
    for name in ("one", "two"):
        _install(repo / name, name)
        (repo / name / "infx" / "__main__.py").write_text(
            "import sys, infx\nprint(infx.MARKER, infx.__file__, sorted(m for m in sys.modules if m.split('.')[0] == 'infx'))\n",
            encoding="utf-8")
        (repo / name / "pyproject.toml").write_text("[project]\nname = 'infx'\n", encoding="utf-8")
    steps = {name: textwrap.dedent(f"""
          {name}:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd
              - run: python -m pip install ./{name}
              - run: infx | tee -a "$RUNNER_TEMP/out"
              - run: python -m infx | tee -a "$RUNNER_TEMP/out"
        """) for name in ("one", "two")}
    workflow = "name: Main\non: push\njobs:\n" + "".join(textwrap.indent(s, "  ") for s in steps.values())
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "main.yml").write_text(workflow, encoding="utf-8")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "two infx copies")
    sha = git(repo, "rev-parse", "HEAD").strip()
    runner = LocalRunner(repo_dir=repo, repository="acme/demo", event=Event("push", {"after": sha}, sha, "refs/heads/main"),
                         run_id=7, work_dir=tmp_path / "work")
    try:
        record = runner.run(".github/workflows/main.yml")
    finally:
        stop_fork_server(proc)
    assert record.conclusion == "success", [j.log for j in record.jobs]
    for number, name in ((1, "one"), (2, "two")):
        site = tmp_path / "work" / f"job{number:03d}-runner" / "site"
        lines = (site.parent / "temp" / "out").read_text().splitlines()
        assert lines == [f"{name} {site / 'infx' / '__init__.py'} ['infx']"] * 2
    kinds = [line.split("\t")[:2] for line in log.read_text().splitlines() if line.startswith(("fork", "exec"))]
    assert kinds == [["fork", "python"], ["fork", "infx"], ["fork", "python"]] * 2
