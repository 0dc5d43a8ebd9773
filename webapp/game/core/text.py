"""What text the table accepts, in one place: every name, field and payload a client sends goes through here.

Text must be valid Unicode (a lone surrogate from JSON's ``"\\ud800"`` cannot be
stored or shown), and holds no control characters (tab and line breaks are
allowed in free text, never in a name) and no bidi overrides or isolates, which
can make a name read backwards on another player's screen. Payloads are also
kept shallow: a client's JSON nests at most ``MAX_DEPTH`` levels.

Pages still render what an old log holds: :func:`scrub` replaces what cannot be
encoded (see ``create_app``'s response class).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, StringConstraints

from rules.pacing import PACE_EVERY, pace
from rules.text import said, say_n

from .model import Rejected

MAX_NAME = 40
MAX_TEXT = 10_000  # any one text in a payload (a sheet's notes are the longest)
MAX_KEY = 100  # a key in a payload's table
MAX_NUMBER = 2**53  # the largest whole number a browser's JavaScript holds exactly
MAX_DEPTH = 12  # nesting of a client's JSON: a sheet is a table of tables of lists, never deeper

#: a rules' refusal as its words: the ``Say`` it was raised with (said in the reader's language), else its text
rules_words = said


def N_(message: str) -> str:
    """A message marked for the catalogs (scripts/i18n extracts N_ too) where it is kept as English and said
    later in the reader's language (``gettext(message)`` where a page or an answer is made): the game package
    stays free of Flask."""
    return message


_BIDI = "\u202a-\u202e\u2066-\u2069"
# invisible characters that make one name look like another ("Mira" and "Mira" + a zero-width space),
# and the bidi marks: in a name they only serve to mislead
_INVISIBLE = "\u00ad\u061c\u180e\u200b\u200e\u200f\u2060-\u2064\ufeff"
# C0 and C1 controls, DEL, bidi overrides and isolates, line and paragraph separators
_BAD_IN_NAME = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_INVISIBLE}\u2028\u2029]")
_BAD_IN_TEXT = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")


def _why(value: str, single_line: bool) -> tuple[str, dict] | None:
    """Why ``value`` is not acceptable text: which fault (a key of ``_WHY``) and its parameters, or None."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "unicode", {}
    found = (_BAD_IN_NAME if single_line else _BAD_IN_TEXT).search(value)
    if found:
        return "char", {"char": f"U+{ord(found.group()):04X}"}
    return None


_WHY = {"unicode": "is not valid Unicode text",
        "char": "may not hold the control, direction or invisible character %(char)s"}
# the same faults said whole, for a refusal in the sender's language (a payload's field, a payload's key)
_IN_FIELD = {"unicode": N_("%(where)s: is not valid Unicode text"),
             "char": N_("%(where)s: may not hold the control, direction or invisible character %(char)s")}
_IN_KEY = {"unicode": N_("%(where)s: a key is not valid Unicode text"),
           "char": N_("%(where)s: a key may not hold the control, direction or invisible character %(char)s")}


def problem(value: str, single_line: bool = True) -> str | None:
    """Why ``value`` is not acceptable text, or None."""
    why = _why(value, single_line)
    return _WHY[why[0]] % why[1] if why else None


def check(value: str, where: str = "text", single_line: bool = True) -> str:
    """``value`` when it is acceptable text, else Rejected naming ``where``."""
    why = problem(value, single_line)
    if why:
        raise Rejected(f"{where} {why}")
    return value


class Fault(ValueError):
    """A validator's refusal of a value (pydantic reports it as ``Value error, ...``): a message id naming the
    field as ``%(field)s`` or ``%(where)s``, with its parameters, said in the reader's language
    (``webapp/game/core/validation.py``); its ``str()`` is the English sentence pydantic shows after the field."""

    def __init__(self, msgid: str, english: str, **params: Any) -> None:
        super().__init__(english)
        self.msgid, self.params = msgid, params


def valid_line(value: str) -> str:
    why = _why(value, True)
    if why:
        raise Fault(_IN_FIELD[why[0]], f"text {_WHY[why[0]] % why[1]}", **why[1])
    return value


def valid_name(value: str) -> str:
    """A name in one form (NFC), so "é" typed on two devices is the same name, and one line of clean text."""
    return unicodedata.normalize("NFC", valid_line(value))


#: a name (game, player, token, character): one line of 1 to 40 characters
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME),
                 AfterValidator(valid_name)]
#: one line of text (a zone id, a weapon, an action)
Line = Annotated[str, AfterValidator(valid_line)]
#: the id of a token, a player, a character, a door
Id = Annotated[str, StringConstraints(min_length=1, max_length=64), AfterValidator(valid_line)]
# free text (a sheet's notes) is checked by check_payload, which every command goes through


def _place(path) -> str:
    """Where a value lies in a payload ("map.walls.3.a", or "the payload"): ``path`` is its chain of
    ``(parent's path, key)`` back to the caller's ``where``, joined only for the refusal that names it."""
    keys = []
    while isinstance(path, tuple):
        path, key = path
        keys.append(str(key))
    if path:
        keys.append(path)
    return ".".join(reversed(keys)) or "the payload"


def check_payload(payload: Any, where: str = "") -> None:
    """Rejected when a client's JSON nests too deep, or holds text (a value or a key) that is not acceptable
    or too long.

    Walks without recursion, so a payload nested thousands deep is refused, not a RecursionError; a big one (a
    map's 40,000 walls) gives the pacer its turn every ``PACE_EVERY`` values (``rules.pacing.pace``, #69). A value's
    place is kept as a chain of keys and written out only for a refusal (``_place``), and a whole number inside a
    list or table within the limits is passed over where it is met (a map's points), and a key already found clean
    is not checked again.
    """
    stack: list[tuple[Any, Any, int]] = [(payload, where, 0)]
    walked, due = 0, PACE_EVERY
    keys: set[str] = set()  # the keys found clean so far
    while stack:
        value, path, depth = stack.pop()
        walked += 1
        if walked >= due:
            due += PACE_EVERY
            pace()
        if depth > MAX_DEPTH:
            raise Rejected(N_("%(where)s: nested more than %(n)s levels deep"), where=_place(path), n=MAX_DEPTH)
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise Rejected(N_("%(where)s: a text has %(n)s characters at most"), where=_place(path), n=MAX_TEXT)
            why = _why(value, False)
            if why:
                raise Rejected(_IN_FIELD[why[0]], where=_place(path), **why[1])
        elif isinstance(value, bool):
            pass
        elif isinstance(value, int) and abs(value) > MAX_NUMBER:
            raise Rejected(N_("%(where)s: a number is %(n)s at most (either side of 0)"), where=_place(path),
                           n=MAX_NUMBER)
        elif isinstance(value, float) and not (math.isfinite(value) and abs(value) <= MAX_NUMBER):
            raise Rejected(N_("%(where)s: a number must be finite, %(n)s at most"), where=_place(path), n=MAX_NUMBER)
        elif isinstance(value, dict):
            inner = depth < MAX_DEPTH  # (an item one level deeper is within the nesting allowed)
            for key, item in value.items():
                if key not in keys:  # (a map's 40,000 walls have the same few keys: each checked once)
                    if not isinstance(key, str):
                        raise Rejected(N_("%(where)s: keys must be text"), where=_place(path))
                    if len(key) > MAX_KEY:
                        raise Rejected(N_("%(where)s: a key has %(n)s characters at most"), where=_place(path),
                                       n=MAX_KEY)
                    why = _why(key, single_line=True)
                    if why:
                        raise Rejected(_IN_KEY[why[0]], where=_place(path), **why[1])
                    if len(keys) < 1000:
                        keys.add(key)
                if inner and type(item) is int and -MAX_NUMBER <= item <= MAX_NUMBER:
                    walked += 1
                    continue
                stack.append((item, (path, key), depth + 1))
        elif isinstance(value, (list, tuple)):
            inner = depth < MAX_DEPTH
            for i, item in enumerate(value):
                if inner and type(item) is int and -MAX_NUMBER <= item <= MAX_NUMBER:
                    walked += 1
                    continue
                stack.append((item, (path, i), depth + 1))


class TooDeep:
    """What a Socket.IO payload nested too deep for the JSON decoder becomes: the handler answers it
    with a clear error instead of the packet being dropped with a RecursionError in the log."""


class SocketJSON:
    """The JSON module Socket.IO packets are read with (``SocketIO(json=...)``)."""

    @staticmethod
    def dumps(*args, **kwargs):
        return json.dumps(*args, **kwargs)

    @staticmethod
    def loads(s, *args, **kwargs):
        try:
            return json.loads(s, *args, **kwargs)
        except RecursionError:
            event = re.match(r'\s*\[\s*("[A-Za-z_]{1,40}")\s*,', s if isinstance(s, str) else "")
            return [json.loads(event.group(1)), TooDeep()] if event else TooDeep()


def too_deep_message() -> str:
    return f"the payload nests too deep ({MAX_DEPTH} levels at most)"


def scrub(value: str) -> str:
    """``value`` with what cannot be encoded replaced (text from an old log, written before these checks)."""
    return value.encode("utf-8", "replace").decode("utf-8")


#: the systems' units of words, counted (rules.system's ``cell_unit``): the count chooses the plural, the
#: amount (a fraction too) is what is written
_UNIT_WORDS = {
    "yard": lambda count, amount: say_n("{n} yard", "{n} yards", count, n=amount),
    "square": lambda count, amount: say_n("{n} square", "{n} squares", count, n=amount),
    "hex": lambda count, amount: say_n("{n} hex", "{n} hexes", count, n=amount),  # a square system on a hex map (#58)
    "zone": lambda count, amount: say_n("{n} zone", "{n} zones", count, n=amount),
    "zone step": lambda count, amount: say_n("{n} zone step", "{n} zone steps", count, n=amount),  # a zone map's attack
}


def on_grid(unit: str, hexes: bool) -> str:
    """A system's unit on this map: its squares are hexes on a hex map (#58); yards, inches and zones stay."""
    return "hex" if hexes and unit == "square" else unit


def measure(amount: float, unit: str) -> str:
    """An amount in a system's unit as people write it: ``5 yards``, ``1 square``, ``2 zones``; a unit
    that is a sign (Savage Worlds' inches, ``"``) goes right after the number, never plural: ``5"``.
    A short unit of letters (``m``, ``ft``) takes a space and no plural. static/js/reach.js writes
    the ruler the same way."""
    n = round(float(amount), 1)
    shown = str(int(n)) if n == int(n) else str(n)
    if not unit.replace(" ", "").isalpha():  # a sign; a unit of words ("zone step") is written out
        return f"{shown}{unit}"
    if unit in _UNIT_WORDS:  # the rules' words (#37): "5 Meter"... in the reader's language, the number as it writes it
        return _UNIT_WORDS[unit](1 if n == 1 else 2 if n != int(n) else int(n), int(n) if n == int(n) else n)
    if len(unit) <= 2 or n == 1:
        return f"{shown} {unit}"
    return f"{shown} {unit}s"
