"""Render the sweep report of a loop run to PNG: each chart of the real report comment drawn by mermaid-cli in headless Chromium.

Runs the loop's single-node scenario (tests/e2e/test_loop.py: PR 41 bumps the ATOM image of
dsr1-fp4-mi355x-atom; run-sweep.yml runs on the local runner with the fake GPU, its `report`
job posts the comment), or takes a report from --report, and draws every ```mermaid block with
mermaid-cli (npm @mermaid-js/mermaid-cli, pinned with integrity hashes in
benchmarks/chart-render/) in Debian's Chromium (`apt install chromium`; puppeteer's own browser
download never runs). Writes <out>/report.md and <out>/chart-<n>.png and prints each PNG's size;
--docs also copies the first chart to docs/images/sweep-report-chart.png (linked from the README).
Run: python benchmarks/render_report_charts.py [--out DIR] [--report FILE] [--chromium PATH] [--docs]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from lib import tools  # noqa: E402

RENDER_TOOLS = ROOT / "benchmarks" / "chart-render"
DOCS_IMAGE = ROOT / "docs" / "images" / "sweep-report-chart.png"
WIDTH = 900


def loop_report(work: Path) -> str:
    """The report comment of the loop's single-node sweep, as its `report` job posted it."""
    from lib.loop_scenarios import failed_jobs, report_comment, single_node_pr, sweep
    from lib.sweep_loop import SweepRepo, make_base_repo

    repo = SweepRepo(make_base_repo(work / "base"), work / "repo")
    record, world = sweep(repo, single_node_pr(repo), work, 9101)
    if record.conclusion != "success":
        raise SystemExit(f"the loop run did not succeed: {sorted(failed_jobs(record))}")
    return report_comment(world)["body"]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "report-charts")
    parser.add_argument("--report", type=Path, help="a report comment (markdown) instead of a loop run")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--docs", action="store_true", help=f"copy the first chart to {DOCS_IMAGE.relative_to(ROOT)}")
    args = parser.parse_args()
    if not Path(args.chromium).is_file():
        raise SystemExit(f"no Chromium at {args.chromium}: `apt install chromium` or pass --chromium")
    modules = tools.node_modules(source=RENDER_TOOLS)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.report:
        body = args.report.read_text(encoding="utf-8")
    else:
        with tempfile.TemporaryDirectory(prefix="infx-loop-") as work:
            body = loop_report(Path(work))
    loop_seconds = time.perf_counter() - started
    (args.out / "report.md").write_text(body, encoding="utf-8")
    blocks = re.findall(r"^```mermaid\n(.*?)\n```$", body, re.M | re.S)
    if not blocks:
        raise SystemExit("the report has no chart")
    config = args.out / "puppeteer.json"
    config.write_text(json.dumps({"executablePath": args.chromium, "headless": True,
                                  "args": ["--no-sandbox", "--disable-gpu"]}), encoding="utf-8")
    mmdc = modules / "@mermaid-js" / "mermaid-cli" / "src" / "cli.js"
    for number, text in enumerate(blocks, 1):
        source, image = args.out / f"chart-{number}.mmd", args.out / f"chart-{number}.png"
        source.write_text(text + "\n", encoding="utf-8")
        began = time.perf_counter()
        done = subprocess.run([tools.node(), str(mmdc), "--quiet", "-p", str(config), "-i", str(source),
                               "-o", str(image), "-w", str(WIDTH), "-b", "white"],
                              capture_output=True, text=True, check=False, timeout=300)
        if done.returncode != 0 or not image.is_file():
            raise SystemExit(f"mermaid-cli failed on chart {number}:\n{done.stdout}{done.stderr}")
        width, height = png_size(image)
        print(f"{image}: {width}x{height} px, {time.perf_counter() - began:.1f} s")
    what = f"report of {args.report}" if args.report else f"loop run's report ({loop_seconds:.0f} s)"
    print(f"{len(blocks)} chart(s) of the {what} in {args.out}")
    if args.docs:
        DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.out / "chart-1.png", DOCS_IMAGE)
        print(f"copied chart 1 to {DOCS_IMAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
