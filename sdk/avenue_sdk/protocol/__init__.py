"""The bot protocol's rules, shared by the arena server and the SDK's local arena.

``convert`` translates referee values to ``agent_avenue.v1`` messages and back (the
``DecisionRequest`` bytes a bot receives are built here, whoever runs the match);
``faults`` names why a seat failed; ``timing`` is the time control and its clock.
The server imports these from the SDK distribution, so a bot played locally is asked
exactly what an arena would ask it.
"""
