"""perf-changelog.yaml: parsing, strict validation, diffing and merge preparation."""
