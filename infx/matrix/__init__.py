"""Matrix generation and changelog planning."""
