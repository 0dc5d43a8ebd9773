"""The forecast of a fight (#68) is right in each of the five systems: its dice are the rules' dice and its figures
say what the rules make of the fight.

- The duel: a hero whose every blow that lands puts the foe down, a foe that cannot hurt the hero. The round the
  fight ends in is then a geometric variable of the chance a round's attack puts the foe down, so over 2,000 runs
  its mean is 1 / that chance within three standard errors (sqrt(1 - p) / p / sqrt(n)). The chance is the rules'
  own, read from the plan the planner makes on each of the hero's turns in the runs themselves (``reckon``'s
  ``hit``, the attack card's odds): the test checks too that it is the same on every turn. Where a system's rules
  depart from that, its test says how and counts it (Savage Worlds' Jokers, phase/TN's two shots a round, the
  defense Atomic Tomorrow's table rolls). They found that the engine counted the round after the last blow (Next turn
  sent after it) and phase/TN's last shots in the round after theirs.
- Adding foes lowers the players' chance: the same fight with two foes more is won less often, beyond both 95%
  intervals.
- From here after a hero has fallen, the chance is lower than from the start (Savage Worlds: test_forecast.py).

Each duel is played on the smallest map that holds it (a corridor of 3 x 1 squares; Atomic Tomorrow: two zones).
"""

from __future__ import annotations

import math
import statistics

import pytest

from webapp.game.planning import forecast
from webapp.game.table import settle

from tests.unit.test_forecast import _run, make

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)

DUEL_RUNS = 2000
CORRIDOR = (3, 1)
#: 2,000 fights take 25 to 50 s of CPU in each system, more on a loaded machine: past the suite's 120 s
DUEL_TIME = pytest.mark.timeout(400)
def character_of(game, token_id: str):
    return next(c for c in game.characters.values() if c.token_id == token_id)


# -- the duel ---------------------------------------------------------------------------------------------------------

#: each system's duel: (the hero's sheet changes, the foe's), the hero on A1, the foe beside it on B1 (Atomic
#: Tomorrow: both in the Landing Pad)
DUELS = {
    # An Extra is Incapacitated by one Wound, and a hit on Toughness -3 (Size -10: Toughness is 2 + half Vigor + Size
    # + Armor) wounds at any damage ("Damage Resolution": each full 4 over Toughness a Wound; the least a Str+d8 rolls
    # is 2). No weapon, no Fighting: the foe attacks nobody. Its Shield (+6 Parry) keeps the chance to hit near half.
    "savage_worlds": ({"edges": [], "weapons": {"Long sword": {"damage": "Str+d8", "edged": True}}},
                      {"wild_card": False, "size": -10, "shield": 6, "weapons": {}, "skills": {}, "bennies": 0,
                       "edges": []}),
    # sw+60 cutting on DR 0 takes the foe past -5 x HP at once: dead ("Injury"). The foe dodges (it has no weapon to
    # parry with); the plan's chance to hit is the attack's past that dodge.
    "gurps_lite": ({"skills": {"Broadsword": 7},
                    "weapons": {"Greatsword": {"skill": "Broadsword", "damage": "sw+60", "type": "cut", "reach": "1",
                                               "kind": "melee", "attack": "swing", "parry_mod": 0}}},
                   {"weapons": {}, "skills": {}, "shield": None, "dr": {}}),
    # 40 damage on a foe without armour is far past its Stamina and Wounds: dead ("Crippling and Death"). Its fist
    # cannot get through Power armour, and with one tick a round (a tick bonus of -4) it strikes no blow at all:
    # an All-Out Attack's lowered defence ("All-Out Attack") would change the hero's odds the round after.
    "tesseris_ads": ({"armour": {"name": "Power armour", "ap": 30, "bulk": -1},
                      "weapons": {"sword": {"name": "Sword", "kind": "melee", "skill": "melee", "damage": 40,
                                            "ap": 0}}},
                     {"weapons": {}, "armour": None, "cloak": None, "max_wounds": 1, "tick_bonus": -4}),
    # 14 flesh wounds of a capacity of 15 (Constitution 5 x 3): any damaging hit puts it down ("Damage and Wounds").
    # Reflexes 1 and no Handguns: a shot hits on 7 or more on the d10 (TN 8).
    "phase_tn": ({"attributes": {"strength": 5, "reflexes": 1, "intelligence": 5, "perception": 5,
                                 "constitution": 5, "willpower": 5}, "skills": {"handguns": 0}},
                 {"weapons": [], "flesh": 14}),
    # 3 wounds, no armour: a hit deals the rifle's 4 wounds or more and the best soak takes 3 off, so it is at 4 at
    # least: Incapacitated ("WOUND EFFECTS", "DAMAGE SOAKING"). Its fist cannot get through heavy armour.
    "atomic_tomorrow": ({"armour": "heavy",
                         "weapons": [{"name": "Blast rifle", "skill": "ranged", "wound_rating": 4,
                                      "armour_piercing": 0, "ranges": ["near", "far"], "area": False}]},
                        {"weapons": [], "armour": "none", "wounds": 3}),
}


def duel(system: str):
    hero, foe = DUELS[system]
    return make(system, [("Hero", "pc", (0, 0), "pad", hero), ("Foe", "npc", (1, 0), "pad", foe)], CORRIDOR)


def played_duel(system: str, monkeypatch, runs: int = DUEL_RUNS, seed: int = 68):
    """The duel forecast ``runs`` times, and the plan of each of the hero's turns in those runs (the planner's own
    call, recorded as the forecast makes it): ``(figures, ids, turns)``, each turn ``(plan, joker)``, ``joker`` True
    when the hero holds the Joker that round (Savage Worlds)."""
    game, ids = duel(system)
    start = forecast.prepared(game, from_start=True)
    turns, reckon = [], forecast.suggestions.reckon

    def recorded(game, token_id, *args, **kwargs):
        found = reckon(game, token_id, *args, **kwargs)
        if token_id == ids["Hero"]:
            books = (game.combat or {}).get("state", {}).get("combatants", {}).get(token_id, {})
            turns.append(((found.get("plans") or [None])[0], bool(books.get("joker"))))
        return found

    monkeypatch.setattr(forecast.suggestions, "reckon", recorded)
    figures = forecast.forecast(start, runs, seed=seed, settle=settle)
    return figures, ids, turns


def only(values) -> float:
    """The one value all of ``values`` have (the test fails when they differ)."""
    found = set(values)
    assert len(found) == 1, found
    return found.pop()


def check_geometric(figures, ids, p: float) -> None:
    """Every run won, none capped, the hero never down, and the rounds' mean within three standard errors of
    1 / ``p`` (a geometric variable's mean, its standard error sqrt(1 - p) / p / sqrt(n))."""
    runs = figures.done
    assert len(runs) == DUEL_RUNS and all(r.won for r in runs), figures.as_dict()
    assert not any(ids["Hero"] in r.down for r in runs) and all(ids["Foe"] in r.down for r in runs)
    mean = statistics.fmean(r.rounds for r in runs)
    error = math.sqrt(1 - p) / p / math.sqrt(len(runs))
    assert abs(mean - 1 / p) <= 3 * error, (mean, 1 / p, error, figures.as_dict()["rounds"])


@DUEL_TIME
@pytest.mark.parametrize("system", ["gurps_lite", "tesseris_ads"])
def test_a_duel_lasts_one_over_the_chance_to_hit_rounds(system, monkeypatch):
    """3d6 and Tesseris: the foe defends every blow the same way (a dodge, a Duck), the plan's ``hit`` counts that
    defence, and every blow that lands puts the foe down, so the fight ends in round 1 / ``hit`` on average."""
    figures, ids, turns = played_duel(system, monkeypatch)
    plans = [plan for plan, _ in turns]
    assert all(plan and plan["kind"] == "attack" and plan["target"] == ids["Foe"] for plan in plans), plans[:3]
    p = only(plan["hit"] for plan in plans)
    assert only(plan["down"] for plan in plans) == pytest.approx(p, abs=1e-4)  # every blow that lands ends it
    assert 0.3 < p < 0.7
    check_geometric(figures, ids, p)


def rounds_with_jokers(p: float, joker: float, cards: int = 54, jokers: int = 2, most: int = 400) -> float:
    """The mean round a Savage Worlds duel ends in when the hero's attack puts the foe down with chance ``p``, and
    ``joker`` in a round whose card is a Joker ("Initiative (Action Cards)": two Jokers in 54 cards, two cards dealt a
    round, the hero's and the foe's, the deck reshuffled after a round a Joker was dealt in): the sum over the
    rounds of the chance the fight reaches them, each state the cards left to deal."""
    alive, mean = {cards: 1.0}, 0.0
    for _ in range(most):
        mean += sum(alive.values())
        after: dict[int, float] = {}
        for left, chance in alive.items():
            held = jokers / left  # the hero's card is a Joker
            theirs = (left - jokers) / left * jokers / (left - 1)  # the foe's is, the hero's not
            after[cards] = after.get(cards, 0.0) + chance * (held * (1 - joker) + theirs * (1 - p))
            if left - 2 >= jokers:  # else both Jokers were the last two cards: dealt this round
                after[left - 2] = after.get(left - 2, 0.0) + chance * (1 - held - theirs) * (1 - p)
        alive = after
    return mean


def test_rounds_with_jokers_is_one_over_the_chance_without_them():
    assert rounds_with_jokers(0.5, 0.5) == pytest.approx(2.0)
    assert rounds_with_jokers(0.25, 0.25) == pytest.approx(4.0)
    assert 1 / 0.75 < rounds_with_jokers(0.5, 1.0) < 2.0


@DUEL_TIME
def test_a_savage_worlds_duel_lasts_one_over_the_chance_to_hit_rounds_the_jokers_counted(monkeypatch):
    """Savage Worlds: the hero's chance is the same every round but in a round its action card is a Joker (+2 to the
    Fighting roll, "Initiative (Action Cards)"), so the mean is the one the deck gives with the plan's two chances
    (``rounds_with_jokers``: about 0.05 round below 1 / the plain chance here); its standard error is taken at the
    plain chance (a little wider than the mix's)."""
    figures, ids, turns = played_duel("savage_worlds", monkeypatch)
    assert all(plan and plan["kind"] == "attack" and plan["target"] == ids["Foe"] for plan, _ in turns), turns[:3]
    assert all(plan["down"] == pytest.approx(plan["hit"], abs=1e-4) for plan, _ in turns)  # a blow that lands ends it
    p = only(plan["hit"] for plan, joker in turns if not joker)
    joker = only(plan["hit"] for plan, joker in turns if joker)
    assert 0.3 < p < 0.7 and joker > p
    runs = figures.done
    assert len(runs) == DUEL_RUNS and all(r.won for r in runs), figures.as_dict()
    assert not any(ids["Hero"] in r.down for r in runs)
    mean, expected = statistics.fmean(r.rounds for r in runs), rounds_with_jokers(p, joker)
    error = math.sqrt(1 - p) / p / math.sqrt(len(runs))
    assert abs(mean - expected) <= 3 * error, (mean, expected, error, figures.as_dict()["rounds"])


@DUEL_TIME
def test_a_phase_tn_duel_lasts_one_over_the_chance_two_shots_hit_rounds(monkeypatch):
    """Phase/TN: a round is two phases, and the hero shoots twice in each (a Target and fire round action's two
    shots at its end, or a Fire phase action each phase), every shot at the plan's chance, and any shot that hits
    puts the foe down: the round the fight ends in is geometric in the chance one of the round's two shots hits,
    1 - (1 - hit)^2. It ends in the round the shot that hit resolved in (at its phase's end, "Initiative and
    Actions"), though the rules roll it when the next phase opens."""
    figures, ids, turns = played_duel("phase_tn", monkeypatch)
    plans = [plan for plan, _ in turns]
    assert all(plan and plan["kind"] == "attack" and plan["target"] == ids["Foe"] for plan in plans), plans[:3]
    hit = only(plan["hit"] for plan in plans)
    assert 0.3 < hit < 0.7
    check_geometric(figures, ids, 1 - (1 - hit) ** 2)


@DUEL_TIME
def test_an_atomic_tomorrow_duel_lasts_one_over_the_chance_to_hit_rounds(monkeypatch):
    """Atomic Tomorrow: the table rolls the hero's attack on the GM's foe with no defense (the table asks a defense of
    a player's token alone, and the rules read none asked as "none"), so the attack card's chance (the plan's
    ``hit``) is the chance the blow lands, and every blow that lands puts the foe down. The plan's ``down`` counts
    the Dodge the foe could make ("DEFENSE OPTION"), which the table never rolls for it: it is lower."""
    figures, ids, turns = played_duel("atomic_tomorrow", monkeypatch)
    plans = [plan for plan, _ in turns]
    assert all(plan and plan["kind"] == "attack" and plan["target"] == ids["Foe"] for plan in plans), plans[:3]
    hit, down = only(plan["hit"] for plan in plans), only(plan["down"] for plan in plans)
    assert 0.3 < down < hit < 0.7
    check_geometric(figures, ids, hit)


# -- more foes, fewer wins --------------------------------------------------------------------------------------------

#: each system's foe, weaker than the hero (the sample sheet) so that the hero usually wins against one
WEAKER = {
    "savage_worlds": {"wild_card": False},  # an Extra: one Wound and it is out
    "gurps_lite": {"skills": {"Broadsword": 10, "Shield": 9, "Guns (Pistol)": 9, "Brawling": 9}},
    "tesseris_ads": {"armour": None, "cloak": None, "is_player": False, "rifles": 0, "agility": 2},
    "phase_tn": {"attributes": {"strength": 5, "reflexes": 1, "intelligence": 5, "perception": 5, "constitution": 3,
                                "willpower": 5}, "skills": {"handguns": 0}},
    "atomic_tomorrow": {"ranged": 20, "unarmed": 20, "melee": 20, "armour": "none"},
}
SYSTEMS = list(WEAKER)


@pytest.mark.parametrize("system", SYSTEMS)
def test_two_foes_more_lower_the_players_chance_beyond_the_intervals(system):
    """A hero against one weaker foe wins more often than not; against three of them (the same map, the two others
    forecast in, not ``removed``) it wins less often, the two 95% intervals apart."""
    game, ids = make(system, [("Hero", "pc", (1, 3), "pad", {}),
                              *[(f"Foe{i}", "npc", (5, 1 + 2 * i), "bay", WEAKER[system]) for i in range(3)]], (7, 7))
    one = forecast.forecast(forecast.prepared(game, from_start=True, removed=[ids["Foe1"], ids["Foe2"]]), 20, seed=5,
                            settle=settle).as_dict()
    three = forecast.forecast(forecast.prepared(game, from_start=True), 20, seed=5, settle=settle).as_dict()
    assert one["party_wins"] > 0.5, one
    assert three["interval"][1] < one["interval"][0], (three, one)


# -- from here, a hero down -------------------------------------------------------------------------------------------

#: a hero down as each system's sheet says it (Savage Worlds: test_forecast.py)
FALLEN = {
    "gurps_lite": {"hp_current": -3, "conditions": ["unconscious"]},  # "Injury": unconscious below 0 HP
    "tesseris_ads": {"stamina": 0, "dying": True, "statuses": [{"name": "Unconscious"}]},  # "Unconsciousness..."
    "phase_tn": {"flesh": 15},  # flesh wounds at capacity (Constitution 5 x 3): down ("Damage and Wounds")
    "atomic_tomorrow": {"wounds": 4},  # "WOUND EFFECTS": 4 wounds, Incapacitated
}


@pytest.mark.parametrize("system", list(FALLEN))
def test_from_here_a_fallen_hero_stays_fallen_and_the_party_fares_worse(system):
    """Two heroes against a foe of their own make: from the start they win more often than from a moment one of them
    is down (its sheet changed as the rules' sheet has it), where the fallen one is down in every run."""
    game, ids = make(system, [("Ann", "pc", (1, 1), "pad", {}), ("Bob", "pc", (1, 3), "pad", {}),
                              ("Brute", "npc", (5, 3), "bay", {})], (7, 7))
    whole = forecast.forecast(forecast.prepared(game, from_start=True), 20, seed=5, settle=settle).as_dict()
    _run(game, {"type": "start_combat", "token_ids": list(ids.values())})
    _run(game, {"type": "update_sheet", "character_id": character_of(game, ids["Ann"]).id, "changes": FALLEN[system]})
    now = forecast.forecast(forecast.prepared(game, from_start=False), 20, seed=5, settle=settle).as_dict()
    assert now["down"][ids["Ann"]] == 1.0, now
    assert now["party_wins"] < whole["party_wins"], (now, whole)
