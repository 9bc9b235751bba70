"""The /reuse-sweep-run command: grammar, authorization, resolution and validation."""
