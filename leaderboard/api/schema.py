"""The OpenAPI schema's security marks: only the operations that need a user say so.

drf-spectacular marks every operation with the configured authentications (plus "or
none" on public ones), so Swagger showed a lock on every endpoint. Here an operation needs
authentication when its view requires a logged-in user or it is one of the writes that
check for one themselves; every other operation has no security requirement at all.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework.permissions import IsAuthenticated

#: (view class name, method) that refuse an anonymous caller in the view's own code
CHECKS_USER_ITSELF = {("BotList", "POST"), ("AuthToken", "DELETE")}


class ArenaSchema(AutoSchema):
    def _needs_user(self) -> bool:
        view = self.view
        if (type(view).__name__, self.method) in CHECKS_USER_ITSELF:
            return True
        return any(isinstance(p, IsAuthenticated) for p in view.get_permissions())

    def get_auth(self) -> list[Any]:
        if not self._needs_user():
            return []
        # without the empty requirement ("or no authentication") spectacular adds
        return [a for a in super().get_auth() if a]
