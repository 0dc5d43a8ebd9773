"""The rules' words as message ids (rules/text.py): English as before, a message id and its parameters to
translate, stored and read back (issue #37)."""

from __future__ import annotations

import copy
import json

from hypothesis import given, strategies as st

from rules.text import Say, joined, pack, plain, say, say_n, settle, unpack
from webapp.game.core.model import Event, LogEntry


class Upper:
    """A catalog that 'translates' by shouting: shows where a translation is used and where not."""

    def gettext(self, message: str) -> str:
        return {"{who} is {state}": "{state}: {who}!", "Shaken": "ANGESCHLAGEN"}.get(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return "{n} WUNDE" if n == 1 else "{n} WUNDEN"


def test_english_is_the_string_and_the_message_is_kept():
    line = say("{who} is {state}", who="Mira", state=say("Shaken"))
    assert line == "Mira is Shaken" and isinstance(line, str)
    assert line.msg == "{who} is {state}" and line.args["who"] == "Mira"
    assert line.translate(Upper()) == "ANGESCHLAGEN: Mira!"  # nested words translated too
    assert line.translate(None) == "Mira is Shaken"


def test_plural_by_count():
    assert say_n("{n} Wound", "{n} Wounds", 1) == "1 Wound"
    assert say_n("{n} Wound", "{n} Wounds", 3) == "3 Wounds"
    assert say_n("{n} Wound", "{n} Wounds", 3).translate(Upper()) == "3 WUNDEN"


def test_numbers_written_by_the_reader():
    line = say("{d} yards", d=2.5)
    assert line.translate(Upper(), number=lambda v: str(v).replace(".", ",")) == "2,5 yards"


def test_a_bad_translation_gives_the_english_not_an_error():
    class Broken(Upper):
        def gettext(self, message):
            return "{nobody} {0}"
    assert say("{who} hits", who="Mira").translate(Broken()) == "Mira hits"


def test_joined_translates_each_part():
    both = joined([say("Shaken"), "raw"], "; ")
    assert both == "Shaken; raw" and both.translate(Upper()) == "ANGESCHLAGEN; raw"


def test_round_trip_through_json():
    line = say("{who} is {state}", who="Mira", state=say("Shaken"))
    back = unpack(json.loads(json.dumps(pack(line))))
    assert isinstance(back, Say) and back == line and back.pack() == line.pack()
    assert copy.deepcopy(line).pack() == line.pack()


def test_event_data_keeps_english_and_messages_through_storage():
    data = {"result": {"summary": say("{who} is {state}", who="Mira", state=say("Shaken")),
                       "effects": [say("Shaken"), "raw"], "rolls": [{"text": say_n("{n} Wound", "{n} Wounds", 2)}]}}
    stored = json.dumps(Event("attack_resolved", data).data)
    assert json.loads(stored)["result"]["summary"] == "Mira is Shaken"  # an old reader sees the English
    back = Event("attack_resolved", json.loads(stored)).data["result"]
    assert back["summary"].translate(Upper()) == "ANGESCHLAGEN: Mira!"
    assert back["effects"][0].translate(Upper()) == "ANGESCHLAGEN" and back["effects"][1] == "raw"
    assert back["rolls"][0]["text"].translate(Upper()) == "2 WUNDEN"
    assert "_say" not in json.dumps(plain(back))


def test_log_entry_keeps_its_message_and_an_old_line_stays_english():
    entry = LogEntry(seq=3, text=say("{who} is {state}", who="Mira", state=say("Shaken")))
    assert entry.message == {"msg": "{who} is {state}", "args": {"who": "Mira", "state": {"msg": "Shaken", "args": {}}}}
    from dataclasses import asdict
    back = LogEntry(**json.loads(json.dumps(asdict(entry))))
    assert isinstance(back.text, Say) and back.text.translate(Upper()) == "ANGESCHLAGEN: Mira!"
    old = LogEntry(**{"seq": 1, "text": "Mira moved to (3, 4)", "audience": "all", "detail": None})
    assert old.text == "Mira moved to (3, 4)" and not isinstance(old.text, Say) and old.message is None


def test_a_log_entrys_record_and_client_view_are_copies_with_its_words():
    """``record()`` (the snapshot's) is what ``asdict`` gave, ``to_dict()`` (a client's) that without ``"_say"``;
    both are copies: a change to them leaves the entry as it was."""
    from dataclasses import asdict
    detail = {"result": {"summary": say("{who} is {state}", who="Mira", state=say("Shaken")),
                         "rolls": [{"text": say_n("{n} Wound", "{n} Wounds", 2), "faces": [3, 6]}]}}
    entry = LogEntry(seq=4, text=say("Shaken"), detail=detail)
    kept = json.dumps(asdict(entry))
    record, view = entry.record(), entry.to_dict()
    assert record == asdict(entry) and json.dumps(record) == kept
    assert view == plain(asdict(entry)) and "_say" not in json.dumps(view) and "_say" in kept
    record["detail"]["result"]["rolls"][0]["faces"].append(1)
    view["detail"]["result"]["rolls"].clear()
    assert json.dumps(asdict(entry)) == kept


names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@given(names, st.integers(-1000, 1000), names)
def test_any_parameters_round_trip(name, number, other):
    line = say("{a} and {b}: {c}", a=name, b=number, c=say("{x}!", x=other))
    back = settle(json.loads(json.dumps(settle({"t": line}))))["t"]
    assert back == line and back.pack() == line.pack()


def test_words_still_work_where_python_reads_them_as_text():
    """A Say is a str: re.escape (which calls str.translate with a table) and the like read its English text;
    a rule system's name of words is one (#37)."""
    import re

    name = say("Plain grid (no rules, tokens only)")
    assert re.escape(name) == re.escape("Plain grid (no rules, tokens only)")
    assert re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", "X", f"the {name} game") == "the X game"
