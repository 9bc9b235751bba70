"""The retest path: `/retest-failed` re-runs only the failed rows of a PR's latest sweep."""
