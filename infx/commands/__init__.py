"""Slash commands in PR comments: read from rendered text, one grammar, who may use each."""
