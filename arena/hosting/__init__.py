"""Hosted bots (issue 13): uploaded Python bots, their code versions, the sandbox that runs
them and the upload check. ``arena.hosting.child`` is the one module that runs *inside* the
sandbox; it imports nothing of the server."""
