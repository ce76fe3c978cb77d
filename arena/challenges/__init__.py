"""Challenge matches: a bot's owner asks for a game or a best-of-N against a bot whose
owner accepts challenges, or has a hosted bot's current version play every house bot now.
Played by the league machinery (an unrated hidden league per mode: ``models``), below
league play in the queue (``arena.dispatch.deferred``). See docs/challenges.md."""
