"""An event read back from the log gets its words back (``Event.stored``: ``rules.text.revive``), walked only until
its packed words are all found (issue #36: the first recap of a long game reads 5,000 events)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.text import Say, revive, say
from webapp.game.core.model import Event


def words(value):
    """Every Say in ``value`` with where it is."""
    out = []
    stack = [((), value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, Say):
            out.append((path, v.msg, str(v)))
        elif isinstance(v, dict):
            stack.extend(((*path, k), x) for k, x in v.items() if k != "_say")
        elif isinstance(v, list):
            stack.extend(((*path, i), x) for i, x in enumerate(v))
    return sorted(out, key=repr)


def test_words_at_every_depth_come_back_however_many_and_wherever():
    data = {"log": [say("{name}'s turn", name="Ana")],
            "state": {"combatants": {f"t{i}": {"card": "QS", "drawn": ["QS", "2H"], "note": say("held")}
                                     for i in range(3)},
                      "bulk": [{"n": i} for i in range(50)]},
            "result": {"effects": [{"target": "t1", "text": say("{n} wounds", n=2)}]},
            "plain": "no words"}
    written = Event("attack_resolved", data)
    text = json.dumps(written.data)
    assert text.count('"_say"') == 5
    read = Event.stored("attack_resolved", json.loads(text), text)
    assert words(read.data) == words(written.data) and len(words(read.data)) == 5


def test_a_text_that_names_the_key_more_often_than_it_holds_it_still_revives_all():
    data = {"note": 'a "_say" in a player\'s text', "log": [say("hello")]}
    text = json.dumps(Event("x", data).data)
    read = Event.stored("x", json.loads(text), text)
    assert isinstance(read.data["log"][0], Say) and read.data["note"] == data["note"]


leaf = st.one_of(st.integers(), st.text(max_size=5), st.builds(lambda s: say("{v} said", v=s), st.text(max_size=5)))
tree = st.recursive(leaf, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                 st.dictionaries(st.sampled_from("abcdef"), kids, max_size=4)),
                    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from("uvwxyz"), tree, max_size=5))
def test_bounded_revive_is_the_whole_walks(data):
    text = json.dumps(Event("x", data).data)
    whole = revive(json.loads(text))
    bounded = Event.stored("x", json.loads(text), text).data
    assert words(bounded) == words(whole)  # (a list of lists of words is kept as English by settle: not compared)
    assert repr(bounded) == repr(whole)
