"""What every API view shares: the query parameters it takes, checked before it runs.

An unknown query parameter answers 400 naming the allowed ones (a typo such as
``?sotr=-rating`` would otherwise be ignored and look like a wrong answer).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.views import APIView


def fields_of(query: type[serializers.Serializer]) -> frozenset[str]:
    """The parameter names of a query serializer (the one the schema documents)."""
    return frozenset(query().fields)


class ArenaView(APIView):
    #: the query parameters this endpoint takes (every method)
    query: frozenset[str] = frozenset()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        unknown = sorted(set(request.query_params) - self.query)
        if unknown:
            names = ", ".join(repr(u[:40]) for u in unknown[:5])
            allowed = (
                f"allowed: {', '.join(sorted(self.query))}"
                if self.query
                else "this endpoint takes no query parameters"
            )
            raise ValidationError({"query": [f"unknown query parameter {names}; {allowed}"]})
        for name, values in request.query_params.lists():
            if any("\x00" in v for v in values):
                # no value of ours holds one, and PostgreSQL's text cannot: say so here
                # rather than let a lookup fail on it
                raise ValidationError({name: [f"{name} must not contain a NUL character"]})
