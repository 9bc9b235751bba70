"""The deterministic CODEOWNER sign-off bot: evidence, checks and verdict."""
