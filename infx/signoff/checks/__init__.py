"""Sign-off checks: one module per check, each exposing ``run(evidence) -> Outcome``."""
