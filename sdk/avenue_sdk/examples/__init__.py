"""Example bots: ``random_bot:RandomBot`` and ``heuristic_bot:HeuristicBot``.

python -m avenue_sdk run avenue_sdk.examples.random_bot:RandomBot --token ...
"""
