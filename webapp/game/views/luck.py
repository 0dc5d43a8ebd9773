"""Luck, told (#59): each character's rolls against their odds, for the recap and the replay.

Pure. A roll the rules gave an exact chance of meeting what it needed, and whose outcome they settled
(``rules.dice.RollRecord``: ``roller``, ``chance``, ``met``; the app's dice and the table's alike), is one roll of
its roller's luck: over a fight, ``rolls`` such rolls, ``met`` of them made, against the ``expected`` sum of
their chances. The luck is ``met - expected``: above what the odds promised, below, or as they promised.
"""

from __future__ import annotations

from typing import Any, Iterator

from rules.text import Say, joined, say, say_n

#: how deep a roll record may lie in an event's data (an attack's result, its details, a soak's trait roll...)
MAX_DEPTH = 8
#: parts of an event's data that hold no roll and may be big (a map, a sheet, a token list): not walked
NO_ROLLS = frozenset({"board", "sheet", "sheets", "character", "tokens", "maps", "picture", "walls", "doors"})


def rolls_in(data: Any) -> list[dict]:
    """The roll records with a chance and a settled outcome anywhere in an event's data, each once (an event may
    hold the same record twice: a Soak's trait roll is in its ``rolls`` and in its ``roll``)."""
    found: dict[tuple, dict] = {}
    for record in _walk(data, 0):
        key = (record.get("roller"), record.get("expr"), record.get("text"), record.get("chance"), record.get("met"),
               repr(record.get("dice")))
        found.setdefault(key, record)
    return list(found.values())


def _walk(value: Any, depth: int) -> Iterator[dict]:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        chance = value.get("chance")
        if ("expr" in value and isinstance(value.get("met"), bool) and isinstance(value.get("roller"), str)
                and isinstance(chance, (int, float)) and not isinstance(chance, bool) and 0 <= chance <= 1):
            yield value
            return
        for k, v in value.items():
            if k not in NO_ROLLS:
                yield from _walk(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, depth + 1)


class Tally:
    """Each roller's luck so far: token id -> ``{"name", "rolls", "met", "expected"}``, in the order they first
    rolled."""

    def __init__(self) -> None:
        self.by: dict[str, dict] = {}

    def add(self, roller: str, name: str, record: dict) -> None:
        t = self.by.setdefault(roller, {"name": name, "rolls": 0, "met": 0, "expected": 0.0})
        t["name"] = name
        t["rolls"] += 1
        t["met"] += int(record["met"])
        t["expected"] += float(record["chance"])

    def told(self) -> list[dict]:
        """``[{"name", "rolls", "luck", "amount", "way"}]``: ``luck`` the rolls made less the sum of their chances;
        ``amount`` it rounded as it is said (a whole number when it is one, else one decimal), ``way`` "above",
        "below" or "as" (what the odds promised)."""
        return [told(t["name"], t["rolls"], t["met"] - t["expected"]) for t in self.by.values() if t["rolls"]]


def told(name: str, rolls: int, luck: float) -> dict:
    """One character's luck as it is said: "Ann: 9 rolls, 3 above what the odds promised"."""
    amount = round(abs(luck), 1)
    way = "as" if amount == 0 else "above" if luck > 0 else "below"
    return {"name": name, "rolls": rolls, "luck": luck, "way": way,
            "amount": int(amount) if amount == int(amount) else amount}


def line(t: dict) -> Say:
    """One character's luck in words (``told``'s dict): "Ann: 9 rolls, 3 above what the odds promised"."""
    if t["way"] == "above":
        return say_n("{name}: {n} roll, {amount} above what the odds promised",
                     "{name}: {n} rolls, {amount} above what the odds promised", t["rolls"], name=t["name"],
                     amount=t["amount"])
    if t["way"] == "below":
        return say_n("{name}: {n} roll, {amount} below what the odds promised",
                     "{name}: {n} rolls, {amount} below what the odds promised", t["rolls"], name=t["name"],
                     amount=t["amount"])
    return say_n("{name}: {n} roll, just what the odds promised", "{name}: {n} rolls, just what the odds promised",
                 t["rolls"], name=t["name"])


def lines(told_list: list[dict]) -> Say:
    """Several characters' luck in one line ("Luck: Ann: ...; Bo: ..."), for the replay's banner."""
    return say("Luck: {lines}", lines=joined([line(t) for t in told_list], "; "))
