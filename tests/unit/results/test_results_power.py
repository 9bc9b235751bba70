"""infx.results.power: GPU power samples into the reference's power and energy fields."""

from __future__ import annotations

import pytest
from lib.fake_amd_smi import output
from lib.fake_results import bench_serving

from infx.results import normalise, power

START, END = 1_790_000_010.0, 1_790_000_020.0
RAW = bench_serving(8, window=(START, END))


def samples_text(gpus: int = 8, watts: float = 500.0, ticks: tuple[float, ...] | None = None,
                 tool: str = "amd-smi", mode: str = "ok", bad_at: float | None = None) -> str:
    """A samples file as the launcher writes it: one tick per second around the window, constant watts."""
    lines = [f"# tool {tool}"]
    for when in ticks if ticks is not None else [START - 2 + i for i in range(15)]:
        tick_mode = mode if bad_at is None or when == bad_at else "ok"
        text = output(tool, gpus, watts, tick_mode, 0.0)  # `now % 7` = 0: constant power
        lines += [f"# sample {when:.6f} {tool} 0", text.rstrip("\n")]
    return "\n".join(lines) + "\n"


def fields(text: str, gpus: int = 8, raw: dict | None = None) -> dict:
    return power.power_fields(raw or RAW, [power.parse_samples(text, 0)], gpus)


def test_constant_power_over_the_window_gives_the_reference_fields():
    out = fields(samples_text())
    energy = 8 * sum(500.0 + 10 * gpu for gpu in range(8)) / 8 * 10.0  # mean watts x GPUs x seconds
    assert out["power_valid"] == 1 and out["power_metric_schema_version"] == 2
    assert out["total_gpu_energy_j"] == pytest.approx(energy)
    assert out["avg_total_gpu_power_w"] == pytest.approx(energy / 10.0)
    assert out["avg_power_w"] == pytest.approx(energy / 10.0 / 8)
    tokens = RAW["total_input_tokens"] + RAW["total_output_tokens"]
    assert out["joules_per_total_token"] == pytest.approx(energy / tokens, rel=1e-5)
    assert out["joules_per_output_token"] == pytest.approx(energy / RAW["total_output_tokens"], rel=1e-5)
    assert out["joules_per_successful_query"] == pytest.approx(energy / RAW["completed"], rel=1e-5)
    assert "power_invalid_reasons" not in out
    assert power.tokens_per_joule(out) == pytest.approx(1 / out["joules_per_total_token"])


def test_the_window_ends_are_interpolated_between_ticks():
    # one GPU ramping 100 W -> 200 W between ticks at START-1 and START+2: the window
    # [START, START+1] sees 133.3 W .. 166.7 W
    text = "# tool amd-smi\n" + "".join(
        f"# sample {t} amd-smi 0\ngpu,socket_power\n0,{w}\n" for t, w in ((START - 1, 100.0), (START + 2, 200.0)))
    joules, problem = power.gpu_energy(power.parse_samples(text, 0).by_gpu["0"], START, START + 1)
    assert problem is None and joules == pytest.approx(150.0)


def test_rocm_smi_output_is_read_too():
    out = fields(samples_text(tool="rocm-smi"))
    assert out["power_valid"] == 1 and out["total_gpu_energy_j"] > 0


@pytest.mark.parametrize(("text", "reason"), [
    ("# tool none\n", "power_tool_missing"),
    (samples_text(mode="garbled"), "invalid_power_sample"),
    (samples_text(mode="partial"), "invalid_power_sample"),
    (samples_text(ticks=(START + 1, START + 2)), "benchmark_window_not_bracketed"),
    (samples_text(ticks=(START - 1, START + 4, END + 1)), "sampling_gap_exceeded"),
    (samples_text(gpus=4), "expected_gpu_count_mismatch"),
    ("# tool amd-smi\n# sample 1790000010 amd-smi 1\n", "sample_command_failed"),
    ("# tool amd-smi\n# sample soon amd-smi 0\ngpu,socket_power\n0,5\n", "invalid_timestamp_sample"),
    ("# tool amd-smi\n# sample 1790000011 amd-smi 0\nsomething went wrong\n", "power_column_missing"),
    ("# tool amd-smi\n", "no_usable_power_samples"),
])
def test_missing_garbled_and_partial_samples_make_power_invalid_and_say_why(text, reason):
    out = fields(text)
    assert out["power_valid"] == 0 and reason in out["power_invalid_reasons"]
    assert not set(power.WHOLE_KEYS) & set(out) and power.tokens_per_joule(out) is None
    assert reason in power.explain(out["power_invalid_reasons"])


def test_a_bad_tick_far_outside_the_window_does_not_matter():
    assert fields(samples_text(mode="garbled", bad_at=START - 2 + 14))["power_valid"] == 0  # END+2: near
    far = samples_text() + "# sample 1790000100 amd-smi 1\n"  # shutdown, 80 s after the window
    assert fields(far)["power_valid"] == 1


@pytest.mark.parametrize(("raw", "reason"), [
    (bench_serving(8), "invalid_benchmark_window"),
    (RAW | {"benchmark_end_time_unix": START}, "invalid_benchmark_window"),
    (RAW | {"completed": 0}, "invalid_successful_query_count"),
    (RAW | {"total_output_tokens": None}, "invalid_output_token_count"),
])
def test_a_result_without_window_or_counts_has_no_valid_power(raw, reason):
    assert reason in fields(samples_text(), raw=raw)["power_invalid_reasons"]


def test_no_samples_file_at_all():
    assert power.power_fields(RAW, [], 8)["power_invalid_reasons"] == ["telemetry_file_missing"]


def test_multi_node_rows_get_energy_per_role():
    prefill = power.parse_samples(samples_text(watts=400.0), 0)
    decode = power.parse_samples(samples_text(watts=700.0), 1)
    out = power.power_fields(RAW, [prefill, decode], 16, roles=(1, 8, 8))
    assert out["power_valid"] == 1
    assert out["prefill_gpu_energy_j"] + out["decode_gpu_energy_j"] == pytest.approx(out["total_gpu_energy_j"])
    assert out["prefill_avg_power_w"] == pytest.approx(out["prefill_gpu_energy_j"] / 10 / 8)
    assert out["decode_avg_power_w"] > out["prefill_avg_power_w"]
    assert out["decode_joules_per_output_token"] == pytest.approx(
        out["decode_gpu_energy_j"] / RAW["total_output_tokens"], rel=1e-5)
    assert out["prefill_joules_per_input_token"] == pytest.approx(
        out["prefill_gpu_energy_j"] / RAW["total_input_tokens"], rel=1e-5)
    # a prefill-only layout has no decode role figures
    assert "decode_gpu_energy_j" not in power.power_fields(RAW, [prefill, decode], 16, roles=(2, 16, 0))


def test_rows_with_power_fields_keep_the_schema():
    row = {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp4", "framework": "sglang",
           "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 8, "ep": 1, "dp-attn": False, "conc": 8,
           "spec-decoding": "none", "disagg": False}
    for nodes in ([power.parse_samples(samples_text(), 0)], [power.parse_samples("# tool none\n", 0)], []):
        (out,) = normalise.benchmark_rows(row, {"b.json": RAW}, "n_1", "r", nodes)
        assert normalise.row_problem(out, normalise.BENCHMARK) is None
    assert normalise.row_problem(out | {"power_valid": 1}, normalise.BENCHMARK)  # valid needs the figures
    assert normalise.row_problem(out | {"total_gpu_energy_j": 1.0}, normalise.BENCHMARK)  # invalid has none
