"""A deep copy of the rules' plain data (a fight's state, a sheet: dicts and lists of strings and numbers), as
``copy.deepcopy`` makes it but several times faster: the rules copy a fight's state at every step they book, and the
foes' plans and a forecast's runs take thousands of steps (#60, #68)."""

from __future__ import annotations

import copy
from typing import Any

#: values ``copied`` shares: immutable (a ``rules.text.Say`` is a str: its words are a value too)
_SHARED = (str, int, float, bool, type(None))
#: the exact types of the values most often met, shared without a call (a subclass, a Say, goes through ``copied``)
_PLAIN = frozenset(_SHARED)


def copied(data: Any) -> Any:
    """JSON-like ``data`` with every dict and list made anew; strings (Says too), numbers and None shared; anything
    else (a tuple, a set: none in a game's JSON-like state, but a copy never shares what could change) deep-copied.
    A dict or list of another kind comes back a plain one."""
    kind = type(data)
    if kind is dict:  # (most values are numbers and strings: shared here, without a call for each)
        return {k: v if type(v) in _PLAIN else copied(v) for k, v in data.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else copied(v) for v in data]
    if isinstance(data, _SHARED):
        return data
    if isinstance(data, dict):
        return {k: copied(v) for k, v in data.items()}
    if isinstance(data, list):
        return [copied(v) for v in data]
    return copy.deepcopy(data)
