"""The plan path, pure: changelog entries -> config keys -> rows -> buckets -> shards, with identity,
fingerprints, coverage, labels, canary and incremental re-sweeps."""
