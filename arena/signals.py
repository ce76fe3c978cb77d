"""What the domain tells the adapters without importing them.

``token_revoked(bot_id, reason)``: sent after the commit that revoked or rotated a bot's
token; the relay ends the bot's open streams on every gateway
(``arena.adapters.relay.revocation``, connected when Django starts).
"""

from django.dispatch import Signal

token_revoked = Signal()
season_ended = Signal()
