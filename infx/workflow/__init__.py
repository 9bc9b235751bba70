"""GitHub Actions plumbing: outputs, summaries, sweep labels, matrix shards, comments, launch env."""
