"""`infx fake-github`: serve a world file on loopback until interrupted."""

from __future__ import annotations

import signal
import sys
import threading

import click


@click.command("fake-github")
@click.option("--world", "world_path", required=True, type=click.Path(dir_okay=False),
              help="World file (YAML or JSON, format: docs/world-format.md).")
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535),
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--dump", "dump_path", type=click.Path(dir_okay=False),
              help="Write the world, with every write applied, here on exit.")
def fake_github(world_path: str, port: int, dump_path: str | None) -> None:
    """Serve WORLD as a local GitHub REST API (prints the base URL on stdout)."""
    from infx.github.fake import FakeGitHub

    fake = FakeGitHub(world_path, port=port)
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    fake.start()
    click.echo(fake.url)
    click.echo(f"serving {world_path}; set GITHUB_API_URL={fake.url} and GITHUB_TOKEN=anything (any non-empty token; Ctrl-C stops)", err=True)
    sys.stdout.flush()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
        if dump_path:
            fake.dump(dump_path)
            click.echo(f"world written to {dump_path} ({len(fake.requests)} requests served)",
                       err=True)
