"""The REST API (DRF) under ``/api/``: thin views over ``leaderboard.reads``,
``leaderboard.replays`` and ``arena.services.owned_bots``."""
