"""Bot analytics a ladder does not show, for a bluffing game: how often a bot's face-down
card is taken, what its offers gain against the choice the opponent passed up, how often it
hands over a third Daredevil or Codebreaker, end reasons, decision times. ``measure`` reads
them from a replay (pure); ``arena.services.analytics`` adds them up as results arrive."""
