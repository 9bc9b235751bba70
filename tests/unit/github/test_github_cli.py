"""`infx fake-github`: serve a world, print the URL, dump the world on exit."""

import signal
import subprocess
import sys

import requests
import yaml

from infx.cli import main


def test_serves_prints_url_and_dumps_on_sigterm(test_data, tmp_path):
    world = test_data / "github" / "worlds" / "basic.yaml"
    dump = tmp_path / "after.yaml"
    proc = subprocess.Popen(
        [sys.executable, "-m", "infx", "fake-github", "--world", str(world), "--dump", str(dump)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        answer = requests.post(f"{url}/repos/acme/inferencex/issues/12/comments",
                               json={"body": "from the cli test"},
                               headers={"Authorization": "token t"}, timeout=5)
        assert answer.status_code == 201
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert proc.returncode == 0
    dumped = yaml.safe_load(dump.read_text())
    assert dumped["pulls"][0]["comments"][-1]["body"] == "from the cli test"
    assert "1 requests served" in proc.stderr.read()


def test_invalid_world_fails_with_location(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("repo: acme/x\ncommits:\n  abc: {}\n")
    assert main(["fake-github", "--world", str(bad)]) == 1
    err = capsys.readouterr()
    assert f"{bad}:3" in err.err and err.out == ""


def test_missing_world_file(tmp_path, capsys):
    assert main(["fake-github", "--world", str(tmp_path / "none.yaml")]) == 1
    assert "cannot read world file" in capsys.readouterr().err


def test_port_in_use_is_a_clear_error(test_data, capsys):
    from infx.github.fake import FakeGitHub

    world = test_data / "github" / "worlds" / "basic.yaml"
    with FakeGitHub(world) as running:
        port = running.url.rsplit(":", 1)[1]
        assert main(["fake-github", "--world", str(world), "--port", port]) == 1
    assert "cannot listen" in capsys.readouterr().err
