"""GitHub Actions plumbing only: step outputs and summaries, comments, launch, collect, scrub."""
