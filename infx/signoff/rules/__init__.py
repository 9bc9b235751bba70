"""Shared rules of the sign-off checks, each module named for what it decides (pure)."""
