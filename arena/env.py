"""Strict readers for settings that come from environment variables.

Each helper reads one variable and either returns a typed value or raises
ImproperlyConfigured naming the variable and what it should look like, so a
misconfigured process stops at start instead of failing later in odd ways.
An empty value counts as unset (``REDIS_URL=`` in a .env file means "no Redis").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final, overload

from django.core.exceptions import ImproperlyConfigured


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Pass as ``default`` to make a variable mandatory.
REQUIRED: Final = _Required()

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def _missing(name: str, hint: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Environment variable {name} is required: {hint}")


@overload
def env_str(
    name: str,
    default: str | _Required = ...,
    *,
    hint: str = ...,
    environ: Mapping[str, str] | None = ...,
) -> str: ...


@overload
def env_str(
    name: str,
    default: None,
    *,
    hint: str = ...,
    environ: Mapping[str, str] | None = ...,
) -> str | None: ...


def env_str(
    name: str,
    default: str | None | _Required = REQUIRED,
    *,
    hint: str = "see .env.example",
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """A string; ``default=None`` makes it optional, the default makes it required."""
    value = _raw(name, environ)
    if value is not None:
        return value
    if isinstance(default, _Required):
        raise _missing(name, hint)
    return default


def env_bool(
    name: str,
    default: bool | _Required = REQUIRED,
    *,
    environ: Mapping[str, str] | None = None,
) -> bool:
    """A boolean spelled 1/0, true/false, yes/no or on/off (any case)."""
    value = _raw(name, environ)
    if value is None:
        if isinstance(default, _Required):
            raise _missing(name, "set it to 1 or 0")
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"Environment variable {name}={value!r} is not a boolean; "
        "use one of 1/0, true/false, yes/no, on/off"
    )


def env_int(
    name: str,
    default: int | _Required = REQUIRED,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """An integer, optionally bounded (inclusive)."""
    value = _raw(name, environ)
    if value is None:
        if isinstance(default, _Required):
            raise _missing(name, "set it to an integer")
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} is not an integer"
        ) from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise ImproperlyConfigured(
            f"Environment variable {name}={number} is out of range [{minimum}, {maximum}]"
        )
    return number


def env_list(
    name: str,
    default: list[str] | _Required = REQUIRED,
    *,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """A comma-separated list; blanks around items and empty items are dropped."""
    value = _raw(name, environ)
    if value is None:
        if isinstance(default, _Required):
            raise _missing(name, "set it to a comma-separated list")
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]
