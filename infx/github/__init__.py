"""Everything that talks to GitHub: client, events, markers and the fake server."""
