"""The client's typed REST endpoints: one module per GitHub resource, each a mixin on the transport.

Each endpoint says what it does and which permission it needs; a caller with its own wording
for the error messages (the sign-off's "read access") passes `action` / `permission`, which
change nothing else of the request. The modules share their names with the fake server's
routes (`infx/github/fake/routes/`): a method and the route that answers it sit in files of
the same name.
"""
