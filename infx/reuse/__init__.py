"""The reuse path: `/reuse-sweep-run` and `/use` resolved to a covering run, acknowledged, and bound to the head they were posted on."""
