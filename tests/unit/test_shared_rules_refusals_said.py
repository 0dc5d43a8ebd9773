"""The last refusals of Savage Worlds and of the shared rule modules are words (#37): each is raised with a
``say()`` (a message id with its parameters), so a page or a Socket.IO answer says it in the reader's
language, and each is in the ``rules`` catalogs, translated in German, French and Spanish. One refusal (or
more) per module converted: Savage Worlds' attack, rapid, system, sheet, turns, movement, cover, checks and
templates (its odds' words: the last test); the shared board, dice, grid, movement, los, zones, areas and system."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import rules
from rules import areas, board, dice, grid, los, movement, zones
from rules import savage_worlds as sw
from rules.dice import SeededDice
from rules.savage_worlds import attack, checks, cover, movement as sw_movement, sheet, templates, turns
from rules.system import AttackRequest, RuleError, RuleNotImplemented, SheetError
from rules.text import Say, fields
from webapp.game.core import speech

from test_savage_worlds_attacks import ann
from test_savage_worlds_choices import bob, listed  # noqa: F401 (listed: a fixture)
from test_savage_worlds_rapid_split import BOB, CY, foe, split

TRANSLATIONS = Path(__file__).resolve().parents[2] / "translations"
S = sw.SYSTEM


def sw_joker_booked():
    a = ann()
    a.state = {"card": "5H", "joker": False, "actions": 1, "used": 0, "ran": False}
    request = AttackRequest(a, bob(), "Long sword", distance=1, options={"joker": True})
    S.odds(request)


#: (what raises, the English it says: a part of it): the representative refusals, one or more per module
REFUSALS = {
    # Savage Worlds
    "sw attack: the fight keeps the Joker": (sw_joker_booked, "Ann does not hold the Joker: the card dealt says so (Initiative)"),
    "sw attack: a negative distance": (lambda: attack.range_modifier(-1, 12, 24, 48), "a distance cannot be negative"),
    "sw rapid: more targets than attacks": (
        lambda: S.odds(split(targets=(BOB, CY, foe("dee", "Dee", (1, 1))), rapid_attack=2)),
        "Rapid Attack: 2 attacks reach at most 2 targets, not 3 (Rapid Attack)"),
    "sw rapid: a split not allowed": (lambda: S.attack(split(rapid_attack=3, rapid_split="3-0"), SeededDice(1)),
                                      "each at least one, as 2-1, 1-2; not '3-0' (Rapid Attack)"),
    "sw system: a list of targets": (lambda: S.attack(split(), SeededDice(1)), "one target at a time"),
    "sw sheet: not a die": (lambda: sheet.validate_sheet({"attributes": {"vigor": "d7"}}),
                            "attributes.vigor: not a die: 'd7' (write d4, d6, d8, d10, d12 or d12+1)"),
    "sw sheet: a weapon's damage": (lambda: sheet.validate_sheet({"weapons": {"Club": {"damage": "Str+d7"}}}),
                                    "weapons.Club.damage: cannot read damage 'Str+d7': a damage die is a d4"),
    "sw sheet: not a table": (lambda: sheet.validate_sheet([]), "a sheet is a table of fields"),
    "sw turns: not an action card": (lambda: turns.action_order(["ZZ"]), "not an action card: 'ZZ'"),
    "sw turns: no action": (lambda: turns.multi_action_penalty(0), "a turn has at least one action"),
    "sw movement: no such action": (lambda: sw_movement.move_allowance({}, "fly"), "no movement action 'fly'"),
    "sw cover: no such level": (lambda: cover.cover_effect("paper"), "no cover level 'paper'"),
    "sw checks: no damage": (lambda: checks.damage_expression("", "d6"), "the weapon has no damage"),
    "sw templates: no such blast": (lambda: templates.blast_cells((2, 2), "huge"), "no blast template 'huge'"),
    "sw templates: no such band": (lambda: templates.deviation_multiplier("far"), "no deviation for range band 'far'"),
    "sw templates: a cone with no direction": (lambda: templates.cone_polygon((1, 1), (1, 1)),
                                               "a cone or line needs a direction: aim at another square"),
    # the shared modules
    "board: a wall of one point": (lambda: board.Board(4, 4).add_wall((1, 1), (1, 1)),
                                   "a wall or door needs two different end points, not (1, 1) twice"),
    "board: a cell off the board": (lambda: board.Board(4, 4).block((9, 2)), "cell (9, 2) is off the 4 x 4 board"),
    "board: a terrain cost": (lambda: board.Board(4, 4).set_terrain((1, 1), -2), "a terrain cost is a positive number"),
    "dice: unreadable": (lambda: dice.parse("2d6+x"), "cannot read '+x' in dice expression '2d6+x'"),
    "dice: a one-sided die": (lambda: dice.parse("3d1"), "a die needs 2 to 1000 sides, not 1, in '3d1'"),
    "dice: keep more than rolled": (lambda: dice.parse("1d6kh2"), "can keep 1 to 1 die, not 2"),
    "grid: no such kind": (lambda: grid.Grid("triangle"), "a grid is square or hex, not 'triangle'"),
    "grid: a token too big for hexes": (lambda: grid.Grid("hex", "pointy").footprint((2, 2), 4),
                                        "a token on hexes covers 1, 3 or 7 hexes (size 1 to 3), not size 4"),
    "movement: no start": (lambda: movement.path_cost(board.Board(4, 4), [], "chebyshev"),
                           "a path has at least its start cell"),
    "movement: a negative budget": (lambda: movement.reachable(board.Board(4, 4), (0, 0), -1, "chebyshev"),
                                    "a movement budget is a number of at least 0"),
    "los: a cell off the board": (lambda: los.can_see(board.Board(4, 4), (0, 0), (7, 7)),
                                  "cell (7, 7) is not on the 4 x 4 board"),
    "zones: a zone twice": (lambda: _zone_twice(), "there is already a zone 'Bar'"),
    "zones: adjacent to itself": (lambda: _zone_to_itself(), "a zone is not adjacent to itself ('Bar')"),
    "areas: no such shape": (lambda: areas.Area("hexagon", 1, 1, 2), "a template is a"),
    "system: not automated": (lambda: rules.get("plain_grid").attack(None, SeededDice(1)),
                              "Plain grid (no rules, tokens only): attacks are not automated"),
}


def _zone_twice():
    zm = zones.ZoneMap()
    zm.add_zone("Bar")
    zm.add_zone("Bar")


def _zone_to_itself():
    zm = zones.ZoneMap()
    zm.add_zone("Bar")
    zm.connect("Bar", "Bar")


def raised(make) -> BaseException:
    with pytest.raises((RuleError, RuleNotImplemented, ValueError)) as info:
        make()
    return info.value


def words_of(exc: BaseException) -> Say:
    words = exc.args[0] if exc.args else None
    assert isinstance(words, Say), f"{type(exc).__name__} raised with plain text: {exc}"
    return words


def each_message(words: Say):
    """The message ids of these words and of every words among their parameters."""
    yield words.msg, words.plural
    for value in words.args.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, Say):
                yield from each_message(v)


@pytest.fixture(scope="module")
def catalogs():
    out = {}
    for lang in ("de", "fr", "es"):
        with (TRANSLATIONS / lang / "LC_MESSAGES" / "rules.po").open("rb") as f:
            out[lang] = {m.id if isinstance(m.id, str) else m.id[0]: m for m in read_po(f, locale=lang) if m.id}
    return out


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_refusal_is_words_in_the_catalog_and_reads_translated(name, catalogs):
    make, english = REFUSALS[name]
    exc = raised(make)
    words = words_of(exc)
    assert english in str(exc) and english in str(words), (str(exc), english)  # the English as before
    for msg, _plural in each_message(words):  # every sentence of it is translated in each language
        for lang in ("de", "fr", "es"):
            entry = catalogs[lang].get(msg)
            assert entry is not None and not entry.fuzzy, (lang, msg)
            strings = entry.string if isinstance(entry.string, (list, tuple)) else [entry.string]
            assert all(strings), (lang, msg)
    for lang in ("de", "fr"):  # and reads in that language: not the English, every placeholder filled
        said = speech.words(words, lang)
        assert said != str(words) and "{" not in said.replace('{"', ""), (lang, said)


def test_a_sheet_refusal_keeps_its_field_and_its_reason_apart_both_as_words():
    exc = raised(lambda: sheet.validate_sheet({"attributes": {"vigor": "d7"}}))
    assert isinstance(exc, SheetError) and exc.path == ("attributes", "vigor")
    assert isinstance(exc.reason, Say) and str(exc.reason) == "not a die: 'd7' (write d4, d6, d8, d10, d12 or d12+1)"
    assert speech.words(exc.reason, "de") == "kein Würfel: 'd7' (schreibe d4, d6, d8, d10, d12 oder d12+1)"
    assert speech.words(words_of(exc), "de") == "attributes.vigor: kein Würfel: 'd7' (schreibe d4, d6, d8, d10, d12 oder d12+1)"


def test_a_choice_between_words_is_one_whole_message_each():
    """The fight's own Joker, running and actions: one sentence each, never a word glued in."""
    exc = raised(sw_joker_booked)
    assert fields(words_of(exc).msg) == {"name"}
    assert speech.words(words_of(exc), "de") == "Ann hat nicht den Joker: so sagt es die ausgeteilte Karte (Initiative)"


def test_the_attack_preview_outcomes_are_words_and_still_match_the_rolled_outcome():
    """Savage Worlds' odds name each outcome in words (critical failure, miss, hit: Shaken...), and
    outcome_of (the rolled attack) names it with the same words."""
    from rules.savage_worlds import odds

    labels = odds.outcome_labels({"wounds": 1, "wild": True})
    assert all(isinstance(label, Say) for label in labels)
    german = [speech.words(label, "de") for label in labels]
    assert german[:4] == ["kritischer Fehlschlag", "verfehlt", "Treffer: keine Wirkung", "Treffer: Angeschlagen"]
    assert "Treffer: 2 Wunden" in german and german[-1] == "Treffer: Außer Gefecht"
    result = S.attack(AttackRequest(ann(), bob(), "Long sword", distance=1), SeededDice(3))
    assert odds.outcome_of(result) in labels
