"""The arena's adapters: what connects the competition domain (``arena``) to the world.

- ``gateway``: the gRPC server bots dial (tokens, streams, resume, limits);
- ``relay``: decisions between match runners and gateways (Redis, direct lanes, in-process);
- ``runner``: plays one game between seats by the match's terms (``arena.terms``);
- ``play``: a claimed match's seats built, run and recorded; rounds in one process;
- ``bothost``: hosted bots run in sandboxes, the upload check, version tests;
- ``embedded``: the one-process mode's dispatcher;
- ``management``: the ``manage.py`` commands (``league``, ``rungateway``, ``runbothost``, ...).

They import the domain; the domain never imports them (the import contract in
pyproject.toml, docs/architecture.md "Layers").
"""
