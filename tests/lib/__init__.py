"""Test-only support code: the GitHub Actions expression evaluator and the tools the workflow tests run."""
