"""A trained policy playing as an SDK bot: the arrays it was trained on in
``avenue_sdk.env`` come from the request (``features.request_features``), and its action
index maps back to the request's legal index.

Replace ``policy`` with your model (a numpy function, a torch module's forward, ...); this
one is a fixed random linear layer, so that the example runs as it is:

    python -m avenue_sdk play avenue_sdk.examples.policy_bot:PolicyBot random --games 100
"""

from __future__ import annotations

import numpy as np

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot
from avenue_sdk.features import N_ACTIONS, OBSERVATION_SIZE, request_features


class PolicyBot(Bot):
    version = "policy-example-1"

    def __init__(self) -> None:
        self.weights = np.random.default_rng(0).normal(size=(OBSERVATION_SIZE, N_ACTIONS))

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action index with the highest score among the legal ones."""
        scores = observation @ self.weights
        return int(np.argmax(np.where(mask == 1, scores, -np.inf)))

    def decide(self, request: pb.DecisionRequest) -> int:
        observation, mask, to_request = request_features(request)
        return to_request[self.policy(observation, mask)]
