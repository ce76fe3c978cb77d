"""The Django project: settings (read from the environment), root URLs, WSGI and ASGI entry
points. It wires the apps together and nothing imports it back (docs/architecture.md)."""
