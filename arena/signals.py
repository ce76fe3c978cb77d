"""What the domain tells the adapters without importing them.

``token_revoked(bot_id, reason)``: sent after the commit that revoked or rotated a bot's
token; the relay ends the bot's open streams on every gateway
(``arena.adapters.relay.revocation``, connected when Django starts).

``season_ended(league, season, bot_ids)``: sent after the commit that ended a league's
season (its table frozen, promotion and relegation applied: ``arena.seasons.ending``).

``bot_notice(bot_id, event_id, kind, text, data, created_at)``: sent after the commit that
recorded an owner's event of a kind a connected bot is told of too
(``arena.notify.outbox.STREAM_KINDS``); the relay pushes it to the bot's open stream, if
it has one (``arena.adapters.relay.botnotices``, connected when Django starts).
"""

from django.dispatch import Signal

token_revoked = Signal()
season_ended = Signal()
bot_notice = Signal()
