"""The bot host (``manage.py runbothost``): hosted bots' code run in bubblewrap sandboxes,
the upload check and version tests that play them. ``child`` is the one module that runs
*inside* the sandbox; it imports nothing of the server."""
