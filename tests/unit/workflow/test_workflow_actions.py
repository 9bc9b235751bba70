"""infx.workflow.actions: single-line step outputs and bounded step summaries."""

from __future__ import annotations

import pytest

from infx.errors import InfxError
from infx.workflow.actions import STEP_SUMMARY_LIMIT, append_summary, render_outputs, write_outputs


def test_render_outputs_types():
    text = render_outputs({"a": "x", "b": True, "c": 3, "d": {"k": [1, 2]}, "e": ["é"]})
    assert text == 'a=x\nb=true\nc=3\nd={"k":[1,2]}\ne=["é"]\n'


@pytest.mark.parametrize(("outputs", "message"), [
    ({"a": "line1\nline2"}, "several lines"),
    ({"bad name": "x"}, "invalid step output name"),
    ({"big": "x" * 600_000}, "1 MB job-output limit"),
])
def test_bad_outputs_fail_before_writing(tmp_path, outputs, message):
    target = tmp_path / "out"
    with pytest.raises(InfxError, match=message):
        write_outputs(outputs, str(target))
    assert not target.exists()


def test_write_outputs_appends(tmp_path, monkeypatch):
    target = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    write_outputs({"a": "1"})
    write_outputs({"b": "2"})
    assert target.read_text() == "a=1\nb=2\n"
    monkeypatch.delenv("GITHUB_OUTPUT")
    write_outputs({"c": "3"})  # no target: nothing to do


def test_summary_is_capped(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert append_summary("x") is False
    target = tmp_path / "summary"
    assert append_summary("é" * STEP_SUMMARY_LIMIT, str(target))
    data = target.read_bytes()
    assert len(data) <= STEP_SUMMARY_LIMIT and data.endswith(b"limit)_\n")
    data.decode("utf-8")  # still valid UTF-8
