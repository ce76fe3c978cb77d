"""The terms of a match that the domain and the match runner share: the faults a seat can
commit and what each costs (``faults``), and what a match produced (``result``). The runner
(``arena.adapters.runner``) plays by them; the models, the results and the ratings read
them, without importing the runner."""
