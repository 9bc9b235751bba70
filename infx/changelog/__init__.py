"""perf-changelog.yaml itself: entry model, diff, strict byte contract, merge preparation, git reads."""
