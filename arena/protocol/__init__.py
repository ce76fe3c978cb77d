"""The bot protocol on the server side: conversions between the referee and
``agent_avenue.v1`` messages (``convert``)."""
