"""The reference's entry-point spelling only: `python -m infx.matrix.plan` is `infx plan` (the plan path itself lives in infx.plan)."""
