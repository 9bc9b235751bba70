"""What starts a verification and whom it speaks for: gating, scope, CODEOWNERS, the
sign-off checklist and its binding to a PR head."""
