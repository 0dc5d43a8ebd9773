"""``text.check_payload``, the check of every string, key, number and nesting of a client's JSON: each refusal names
the place of what it refuses ("map.walls.2.id"), whole numbers within the limits passed over where they are met
(a map's points) are still refused past the nesting allowed or the largest number, and a big payload gives the pacer
its turn every ``PACE_EVERY`` values (#69: the biggest map's 280,000)."""

from __future__ import annotations

import pytest

from webapp.game.core import text
from webapp.game.core.model import Rejected
from webapp.game.core.text import MAX_DEPTH, MAX_NUMBER, check_payload


def refusal(payload, where: str = "") -> str:
    with pytest.raises(Rejected) as caught:
        check_payload(payload, where)
    exc = caught.value
    return exc.args[0] % exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], dict) else str(exc)


def test_a_clean_map_passes():
    check_payload({"name": "Big", "map": {"width": 30, "walls": [{"a": [1, 2], "b": [3.5, 2]} for _ in range(50)]}})


@pytest.mark.parametrize("payload,where,place", [
    ({"map": {"walls": [{"a": [0, 0]}, {"a": [0, 0]}, {"id": "x\x00y"}]}}, "", "map.walls.2.id"),
    ({"map": {"walls": [{"a": [0, 2**60]}]}}, "", "map.walls.0.a.1"),
    ({"sheet": {"notes": "x" * (text.MAX_TEXT + 1)}}, "", "sheet.notes"),
    ({"a": [1.5, float("inf")]}, "", "a.1"),
    ([7, "ok", "bad\x07"], "", "2"),
    ({"k": "bad\x07"}, "options", "options.k"),
    ("bad\x07", "", "the payload"),
])
def test_a_refusal_names_the_place_of_what_it_refuses(payload, where, place):
    assert refusal(payload, where).startswith(place + ":")


def test_keys_are_checked_and_named_by_their_table():
    assert refusal({"map": {1: 2}}).startswith("map: keys must be text")
    assert refusal({"map": {"k" * (text.MAX_KEY + 1): 2}}).startswith("map: a key has")


def test_whole_numbers_passed_over_are_held_to_the_limits():
    deep: object = 5
    for _ in range(MAX_DEPTH):
        deep = [deep]
    check_payload(deep)  # MAX_DEPTH lists round a number: allowed
    assert "nested more than" in refusal([deep])  # one more: refused, a number inside as well as anything
    assert "a number is" in refusal({"x": [MAX_NUMBER + 1]}) and "a number is" in refusal({"x": -MAX_NUMBER - 1})
    check_payload({"x": [MAX_NUMBER, -MAX_NUMBER]})
    assert "a number" not in refusal({"x": [True, 3, "a\x07"]})  # (a bool is not a number here, nor refused)


def test_a_big_payload_gives_the_pacer_its_turn(monkeypatch):
    turns = []
    monkeypatch.setattr(text, "pace", lambda: turns.append(1))
    walls = [{"a": [x, 0], "b": [x + 1, 0]} for x in range(4000)]  # 4,000 x 7 values
    check_payload({"map": {"walls": walls}})
    values = 1 + 1 + 1 + 4000 * 7
    assert len(turns) == values // text.PACE_EVERY
