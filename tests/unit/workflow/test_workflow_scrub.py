"""infx.workflow.scrub: secrets and token-shaped strings leave artifact folders before upload."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from infx.workflow.scrub import scrub_bytes, secret_values
from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[3]
TOKEN = "hf_" + "A1b2C3d4" * 5


def test_the_command_masks_secrets_in_every_file_and_removes_links(tmp_path):
    logs = tmp_path / "logs"
    (logs / "server").mkdir(parents=True)
    (logs / "server" / "out.log").write_text(f"token={TOKEN}\nHF_TOKEN={TOKEN} again\n")
    (logs / "env.txt").write_text("custom-secret-value and ghp_" + "x" * 36 + "\n")
    (logs / "clean.txt").write_text("nothing here\n")
    (logs / "binary.bin").write_bytes(b"\x00\xff" + TOKEN.encode() + b"\x00")
    (logs / "link").symlink_to("/etc/hostname")
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO), "HF_TOKEN": TOKEN,
           "OTHER": "custom-secret-value", "INFX_SCRUB_SECRETS": "HF_TOKEN,OTHER"}
    done = subprocess.run([sys.executable, "-m", "infx.workflow.scrub", str(logs),
                           str(tmp_path / "missing")], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    everything = b"".join(p.read_bytes() for p in logs.rglob("*") if p.is_file())
    assert TOKEN.encode() not in everything and b"custom-secret-value" not in everything
    assert b"ghp_" not in everything and b"nothing here" in everything
    assert (logs / "server" / "out.log").read_text() == "token=***\nHF_TOKEN=*** again\n"
    assert not (logs / "link").exists() and not (logs / "link").is_symlink()
    assert TOKEN not in done.stdout and "2 secret(s) masked" in done.stdout
    # a folder that is not there is said (a typo is visible), and is no failure
    assert f"warning: {tmp_path / 'missing'}: no such file or folder" in done.stderr


def test_short_or_empty_secrets_are_not_used_as_masks():
    assert secret_values({"HF_TOKEN": ""}) == []
    assert secret_values({"HF_TOKEN": "ab"}) == []
    assert scrub_bytes(b"a plain line", secret_values({"HF_TOKEN": "a"})) == (b"a plain line", 0)


def test_the_template_scrubs_before_every_upload():
    steps = load_file(REPO / ".github" / "workflows" / "benchmark-tmpl.yml")["jobs"]["benchmark"]["steps"]
    names = [s.get("name", "") for s in steps]
    scrub = next(i for i, s in enumerate(steps) if "infx.workflow.scrub" in s.get("run", ""))
    uploads = [i for i, s in enumerate(steps) if "upload-artifact" in str(s.get("uses", ""))]
    assert uploads and all(scrub < i for i in uploads), names
    assert "results" in steps[scrub]["run"] and "logs" in steps[scrub]["run"]
    assert steps[scrub]["if"].startswith("always()")
    # HF_TOKEN reaches only the launch and the scrub steps
    with_token = [s.get("name") for s in steps if "HF_TOKEN" in str(s.get("env", {}))]
    assert with_token == ["Launch", "Scrub secrets from results and logs"]
