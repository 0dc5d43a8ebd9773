"""phase_tn against *Phase/TN Combat Sequence*: each test quotes or paraphrases the rule it checks."""

import itertools
from collections import Counter

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError

SEMI = {"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}
RIFLE = {"name": "Bolt rifle", "skill": "rifles", "damage": "2d6", "mode": "single"}
SMG = {"name": "SMG", "skill": "handguns", "damage": "2d6", "mode": "auto"}


def sheet(*weapons, **attrs):
    s = pt.SYSTEM.default_sheet()
    s["attributes"].update(attrs)
    if weapons:
        s["weapons"] = [dict(w) for w in weapons]
    return s


def one_declarer(targeting=None):
    state = pt.new_combat(["a", "b"])
    if targeting:
        state["targeting"] = targeting
    state, _ = pt.begin_phase(state, {"a": sheet(), "b": sheet()}, ScriptedDice([1, 9]))
    assert state["order"] == ["a", "b"]
    return state


# ------------------------------------------------------------- Combined Actions


def test_target_and_fire_needs_a_semi_automatic_firearm():
    """"Combined Actions": "a character with a semi-automatic firearm may make the
    'target and fire' action": its second phase fires two shots, which a
    single-shot weapon cannot."""
    state = one_declarer()
    with pytest.raises(RuleError, match="semi-automatic"):
        pt.declare(state, "a", [{"name": "target_and_fire", "target": "b", "weapon": "Bolt rifle"}], sheet=sheet(RIFLE, SEMI))
    after = pt.declare(state, "a", [{"name": "target_and_fire", "target": "b", "weapon": "Sidearm"}], sheet=sheet(RIFLE, SEMI))
    assert after["pending"][0]["weapon"] == "Sidearm" and after["pending"][0]["shots"] == 2


def test_bursts_and_full_auto_are_declared_only_with_an_automatic_weapon():
    """"Special Ranged Attacks": "Firing a fully automatic weapon is a round action; if
    the character wishes to only fire for a phase, it is considered a 3-round burst"."""
    state = one_declarer()
    for name in ("full_auto", "three_round_burst"):
        with pytest.raises(RuleError, match="automatic"):
            pt.declare(state, "a", [{"name": name, "target": "b"}], sheet=sheet(SEMI))
    auto = pt.declare(state, "a", [{"name": "full_auto", "target": "b"}], sheet=sheet(SMG))
    assert auto["pending"][0]["length"] == "round" and auto["pending"][0]["weapon"] == "SMG"
    burst = pt.declare(state, "a", [{"name": "three_round_burst", "target": "b"}], sheet=sheet(SMG))
    assert burst["pending"][0]["length"] == "phase" and burst["pending"][0]["bullets"] == 3


# ------------------------------------------------------------- Ranged Attacks


def test_a_wild_shot_cannot_be_called_or_aimed_when_declared():
    """"Ranged Attacks": without a Targeting action "any shots fired at that target are
    wild shots. Wild shots cannot be 'called', cannot have the Aim action used to
    improve them"."""
    state = one_declarer()
    with pytest.raises(RuleError, match="wild shot cannot be aimed"):
        pt.declare(state, "a", [{"name": "aim", "target": "b"}])
    with pytest.raises(RuleError, match="wild shot cannot be called"):
        pt.declare(state, "a", [{"name": "fire", "target": "b", "called": "head"}])
    held = one_declarer(pt.acquire_target({}, "a", "b", 0))
    pt.declare(held, "a", [{"name": "aim", "target": "b"}])
    pt.declare(held, "a", [{"name": "fire", "target": "b", "called": "head"}])


def test_aim_improves_the_next_targeted_shot_and_is_used_up():
    """"Ranged Attacks": the Aim action improves a targeted shot (its size is the
    ``aim_bonus`` setting, per Aim, up to ``aim_max``); the shot then fires."""
    sheets = {"a": sheet(), "b": sheet()}
    state = one_declarer(pt.acquire_target({}, "a", "b", 0))
    state = pt.declare(state, "a", [{"name": "aim", "target": "b"}])
    state = pt.declare(state, "b", [])
    state, _ = pt.end_phase(state)
    assert state["targeting"]["a"]["aims"] == 1
    state, _ = pt.begin_phase(state, sheets, ScriptedDice([1, 9]))
    state = pt.declare(state, "a", [{"name": "fire", "target": "b"}])
    state = pt.declare(state, "b", [])
    state, groups = pt.end_phase(state, {"aim_bonus": 2})
    shot = groups[0]["actions"][0]["attack"]
    assert shot["options"] == {"mode": "single", "targeted": True, "aim": 2}
    assert state["targeting"]["a"]["aims"] == 0


def test_switching_targets_with_aim_loses_targeting():
    """"Ranged Attacks": the Targeting is good as long as "the character does not switch targets"."""
    state = one_declarer(pt.acquire_target({}, "a", "b", 0))
    after = pt.declare(state, "a", [{"name": "target", "target": "c"}])
    assert after["targeting"] == {}


def test_a_resolving_shot_is_wild_without_targeting_and_targeted_after_it():
    """"Ranged Attacks": "If this action is not taken, any shots fired at that target are
    wild shots"; "Combined Actions": target and fire targets in its first phase and
    fires two shots in its second, so those are targeted shots."""
    sheets = {"a": sheet(), "b": sheet()}
    state = one_declarer()
    state = pt.declare(state, "a", [{"name": "target_and_fire", "target": "b"}])
    state = pt.declare(state, "b", [{"name": "fire", "target": "a"}])
    state, groups = pt.end_phase(state)
    b_shot = next(e["attack"] for g in groups for e in g["actions"] if "attack" in e)
    assert b_shot["attacker"] == "b" and b_shot["options"]["targeted"] is False
    state, _ = pt.begin_phase(state, sheets, ScriptedDice([9]))
    state = pt.declare(state, "b", [])
    state, groups = pt.end_phase(state)
    (a_shot,) = [e["attack"] for g in groups for e in g["actions"] if "attack" in e]
    assert a_shot["shots"] == 2 and a_shot["options"]["targeted"] is True


def test_earl_targets_leroys_head():
    """"Initiative and Actions": Earl "declares that he will target Leroy's head": a
    Targeting action may name the area of the called shot."""
    state = one_declarer()
    after = pt.declare(state, "a", [{"name": "target", "target": "b", "called": "head"}])
    assert after["pending"][0]["called"] == "head"
    with pytest.raises(RuleError, match="unknown location"):
        pt.declare(state, "a", [{"name": "target", "target": "b", "called": "tail"}])


# ------------------------------------------------------------- settings and readings


def test_traumatic_wounds_penalise_initiative_as_every_roll():
    """The ``trauma_roll_penalty`` reading (the document stops short): -2 to every roll
    for each traumatic wound, initiative included (it is "rolled", "Combat Sequence")."""
    hurt = sheet(reflexes=6, intelligence=5)
    hurt["trauma"] = {"left arm": 1}
    result = pt.roll_initiative(hurt, ScriptedDice([5]))
    assert result["total"] == 5 + 11 - 2


def test_settings_reach_attack_and_odds_through_the_request_options():
    """docs/RULES.md: per-game settings reach attack and odds in options["settings"]."""
    a = Combatant("a", "A", sheet())
    b = Combatant("b", "B", sheet())
    req = AttackRequest(a, b, options={"targeted": True, "settings": {"ranged_tn": 14}})
    assert pt.SYSTEM.odds(req)["tn"] == 14
    assert not pt.SYSTEM.attack(req, ScriptedDice([5])).hit  # 5 + 8 = 13 < 14
    with pytest.raises(RuleError):
        pt.SYSTEM.odds(AttackRequest(a, b, options={"settings": {"nonsense": 1}}))


# ------------------------------------------------------------- odds against attack()


def _shooter():
    return Combatant("a", "A", sheet(SEMI, SMG))


CASES = [
    ("plain", "d10", {"targeted": True}),
    ("wild", "d10", {"targeted": False, "tn": 9}),
    ("called head", "d10", {"targeted": True, "called": "head", "tn": 7}),
    ("called arm, arm covered", "d10", {"targeted": True, "called": "left arm", "tn": 9, "impossible_locations": ["left arm", "chest"]}),
    ("legs covered", "d10", {"targeted": True, "tn": 12, "impossible_locations": ["left leg", "right leg"]}),
    ("burst", "d10", {"targeted": True, "mode": "burst", "tn": 6, "weapon": "SMG"}),
    ("full auto", "2d10", {"targeted": True, "mode": "full_auto", "tn": 10, "weapon": "SMG"}),
    ("called chest, 2d10", "2d10", {"targeted": True, "called": "chest", "tn": 14}),
    ("called head, nothing above the legs", "d10", {"targeted": True, "called": "head", "tn": 7,
                                                    "impossible_locations": ["head", "chest", "abdomen", "left arm", "right arm"]}),
    ("burst, all covered", "d10", {"targeted": True, "mode": "burst", "tn": 6, "weapon": "SMG",
                                   "impossible_locations": list(pt.LOCATIONS)}),
]


def _outcome(result, mode):
    """The odds' outcome line an attack() result is, in the same words."""
    if not result.hit:
        return "blocked" if result.details.get("blocked") else "miss"
    if mode == "single":
        return f"hit: {result.details['locations'][0]}"
    n = len(result.details["locations"])
    return f"hit: {n} hit{'s' if n > 1 else ''}"


@pytest.mark.parametrize("label,roll_dice,options", CASES, ids=[c[0] for c in CASES])
def test_odds_equal_a_brute_force_of_attack(label, roll_dice, options):
    """Every to-hit roll and every hit-location roll of the game's dice is run through
    attack() with scripted dice; the counted outcomes must equal odds() exactly."""
    options = dict(options)
    weapon = options.pop("weapon", None)
    settings = {"roll_dice": roll_dice, "trauma_check": False}
    req = AttackRequest(_shooter(), Combatant("b", "B", sheet()), weapon=weapon, options=options)
    exact = pt.SYSTEM.odds(req, settings)
    sides = 10
    n_dice = 2 if roll_dice == "2d10" else 1
    hit = Counter()
    hits = Counter()
    first = Counter()
    outcome = Counter()
    cases = 0
    for to_hit in itertools.product(range(1, sides + 1), repeat=n_dice):
        # the location die of each hit is the same face: enumerate it too
        for loc_face in [None] if options.get("called") else range(1, 11):
            cases += 1
            faces = list(to_hit)
            for _ in range(12):  # up to full_auto_bullets hits: location (unless called), 2d6 damage
                faces += ([] if loc_face is None else [loc_face]) + [1, 1]
            result = pt.SYSTEM.attack(req, ScriptedDice(faces), settings)
            hit[result.hit] += 1
            outcome[_outcome(result, options.get("mode", "single"))] += 1
            hits[len(result.details.get("hits", []))] += 1
            locs = result.details.get("locations", [])
            first[locs[0] if locs else ("blocked" if result.details.get("blocked") else None)] += 1
    assert exact["hit"] == pytest.approx(hit[True] / cases)
    if exact.get("blocked"):
        assert exact["blocked"] == pytest.approx(first["blocked"] / cases)
    for loc, p in exact["locations"].items():
        assert p == pytest.approx(first[loc] / cases), loc
    assert sum(exact["locations"].values()) == pytest.approx(exact["hit"])
    assert exact["hit"] + exact["blocked"] == pytest.approx(exact["reach"])
    # outcome by outcome, in the odds' own words, against what attack() rolled
    assert {o["label"]: o["p"] for o in exact["outcomes"] if o["p"] > 1e-12} == pytest.approx(
        {label: c / cases for label, c in outcome.items()})
    if "impossible_locations" not in options:
        assert {n: p for n, p in exact["hits"].items() if p} == pytest.approx({n: c / cases for n, c in hits.items()})
    if options.get("called"):
        called_tn = exact["tn"] + pt.default_settings()["called_shot_tn"][options["called"]]
        reached = sum(1 for t in itertools.product(range(1, sides + 1), repeat=n_dice)
                      if sum(t) + 8 >= called_tn) / sides ** n_dice
        assert exact["called_location"] == pytest.approx(reached)


def test_burst_outcomes_with_some_areas_covered_match_a_monte_carlo_of_attack():
    """"Ranged Attacks": a hit on an impossible area moves along the drift order; each hit
    of a burst rolls its own area, so some hits of one burst may find no area while others
    land. The odds' lines ("miss", "hit: n hits", "blocked") against 6000 rolled bursts."""
    from rules.dice import SeededDice

    settings = {"trauma_check": False, "hit_location_table": [[1, 5, "left leg"], [6, 10, "head"]]}
    # legs covered with everything their drift order reaches: a leg hit finds no area
    covered = ["left leg", "right leg", "abdomen", "left arm", "right arm", "chest"]
    req = AttackRequest(_shooter(), Combatant("b", "B", sheet()), weapon="SMG",
                        options={"targeted": True, "mode": "burst", "tn": 6, "impossible_locations": covered})
    exact = {o["label"]: o["p"] for o in pt.SYSTEM.odds(req, settings)["outcomes"]}
    assert set(exact) == {"miss", "hit: 1 hit", "hit: 2 hits", "hit: 3 hits", "blocked"}
    assert sum(exact.values()) == pytest.approx(1)
    dice, n = SeededDice(11), 6000
    seen = Counter(_outcome(pt.SYSTEM.attack(req, dice, settings), "burst") for _ in range(n))
    for label, p in exact.items():
        assert abs(seen[label] / n - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 0.005, (label, seen[label] / n, p)
