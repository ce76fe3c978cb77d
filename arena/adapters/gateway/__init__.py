"""The gRPC gateway bots connect to (``manage.py rungateway``).

``create_server(address, gateway)`` builds the server; ``Gateway`` is the servicer that
authenticates streams and bridges them to the relay (one ``Session`` per stream);
``GatewayThread`` runs a gateway in a background thread (embedded mode, tests).
"""

from arena.adapters.gateway.auth import Authenticator, DatabaseAuthenticator, StaticAuthenticator
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.server import Gateway
from arena.adapters.gateway.serving import GatewayThread, create_server, serve

__all__ = [
    "Authenticator",
    "DatabaseAuthenticator",
    "Gateway",
    "GatewayConfig",
    "GatewayThread",
    "StaticAuthenticator",
    "create_server",
    "serve",
]
