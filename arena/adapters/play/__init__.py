"""Playing the domain's matches: a claimed match's seats built, run by the match runner
through the relay, its result recorded (``matches``); rounds played in one process
(``roundplay``); bots' announced ceilings of concurrent matches (``seatcaps``)."""
