"""gurps_lite: the fidelity fixes, each derived from the words of *3d6 Combat*."""

import itertools
from dataclasses import replace
from collections import defaultdict

import pytest
from hypothesis import given, settings, strategies as st

from rules import gurps_lite as g
from rules.dice import ScriptedDice
from rules.gurps_lite.defenses import new_round_defenses, record_defense
from rules.gurps_lite.health import collapse, shock_after_turn
from rules.gurps_lite.ranged import rapid_strike_shots
from rules.system import AttackRequest, Combatant, RuleError

from test_gurps_lite_combat import d3, req, rolls, sheet


# --- "Hit Locations": a miss by 1 hits the torso, in the odds too ----------

def three_d6_counts():
    counts = defaultdict(int)
    for faces in itertools.product(range(1, 7), repeat=3):
        counts[sum(faces)] += 1
    return counts


@pytest.mark.parametrize("location, torso_dr", [("skull", 0), ("face", 3), ("neck", 1)])
def test_odds_count_a_miss_by_one_at_the_torso_like_the_attack_does(location, torso_dr):
    """"if an attack missed by 1 it hits the torso instead" (note 1 of the skull, face, neck...).

    Brute force: drive ``attack()`` with every 3d6 total, every damage die and every
    torso-to-vitals die, weight each by its chance, and compare the injury
    distribution with ``attack_odds``; a miss by 1 must be counted with the torso's
    DR and wounding, not the aimed location's.
    """
    attacker = sheet(skills={"Broadsword": 16})
    target = sheet(HP=20, dr={"torso": torso_dr, "vitals": torso_dr})
    request = req("Club", attacker=attacker, target=target, location=location)
    odds = g.attack_odds(request)
    counts = three_d6_counts()
    brute = defaultdict(float)
    torso_hits = 0.0
    for total, n in counts.items():
        for damage, vitals in itertools.product(range(1, 7), repeat=2):
            dice = ScriptedDice(d3(total) + [damage, vitals] + [1, 1, 1] * 6)
            r = g.attack(req("Club", attacker=attacker, target=target, location=location), dice)
            p = n / 216 / 36
            brute[r.details["injury"]] += p
            hits = r.details["attacks"][0]["damage"]
            if hits and hits[0]["location"] in ("torso", "vitals"):
                torso_hits += p
    assert set(odds["injury"]) >= {k for k, p in brute.items() if p}
    for k, p in odds["injury"].items():
        assert p == pytest.approx(brute.get(k, 0.0), abs=1e-12)
    skill = 16 + g.LOCATIONS[location].to_hit
    assert odds["p_torso_instead"] == pytest.approx(counts[skill + 1] / 216)
    assert torso_hits == pytest.approx(counts[skill + 1] / 216)


def test_odds_of_a_miss_by_one_differ_from_a_hit_at_the_aimed_location():
    """The skull's x4 and +2 DR must not apply to the torso hit of a miss by 1."""
    o = g.attack_odds(req("Club", attacker=sheet(skills={"Broadsword": 16}), location="skull",
                          settings={"torso_vitals_roll": False}))
    p_skull = g.success_chance(9)
    p_torso = 27 / 216  # a roll of exactly 10 against 9
    skull_mean = sum(max(0, d - 2) * 4 for d in range(1, 7)) / 6
    assert o["mean_injury"] == pytest.approx(p_skull * skull_mean + p_torso * 3.5)


# --- "Attacking", Rapid Strike: a ranged weapon splits its RoF ------------

def test_ranged_rapid_strike_splits_the_rate_of_fire():
    """"For ranged weapons the rate of fire needs to be greater than 1 ... You split your rate of
    fire among the different targets": two attacks from RoF 3 fire 3 shots between them."""
    gun = sheet(weapons={"Gun": {"skill": "Guns", "damage": "1d", "type": "pi", "kind": "ranged", "rof": 3,
                                 "rcl": 2, "max": 1000}})
    r = g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=1, shots=3), rolls(18, 18))
    assert [a["shots"] for a in r.details["attacks"]] == [2, 1]
    r = g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=1), rolls(18, 18))
    assert [a["shots"] for a in r.details["attacks"]] == [1, 1]
    r = g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=1, shots=[1, 2]), rolls(18, 18))
    assert [a["shots"] for a in r.details["attacks"]] == [1, 2]
    for too_many in (4, [3, 1], [2, 2]):
        with pytest.raises(RuleError, match="RoF"):
            g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=1, shots=too_many), rolls(18, 18))
    with pytest.raises(RuleError):  # four attacks cannot share three shots
        g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=2), rolls(18, 18, 18, 18))


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 20), st.integers(1, 3), st.one_of(st.none(), st.integers(1, 30)))
def test_a_ranged_rapid_strike_never_fires_more_than_the_rof(rof, levels, shots):
    attacks = 2 ** levels
    gun = sheet(weapons={"Gun": {"skill": "Guns", "damage": "1d", "type": "pi", "kind": "ranged", "rof": rof,
                                 "rcl": 1, "max": 1000}})
    wanted = shots if shots and shots >= attacks else attacks  # fewer than one each: one shot each
    try:
        r = g.attack(req("Gun", attacker=gun, distance=3, rapid_strike=levels, shots=shots),
                     rolls(*[18] * attacks))
    except RuleError:
        assert wanted > rof
        return
    fired = [a["shots"] for a in r.details["attacks"]]
    assert len(fired) == attacks and min(fired) >= 1 and sum(fired) <= rof
    assert sum(fired) == wanted


def test_rapid_strike_shots_split():
    assert rapid_strike_shots(10, 4, 10) == [3, 3, 2, 2]
    with pytest.raises(RuleError):
        rapid_strike_shots(1, 2)


# --- "Defending", Cross: the limbs used cannot parry again this round -----

def two_weapon_defender():
    return sheet(skills={"Broadsword": 14})


def test_cross_parry_ties_up_both_weapons_for_the_round():
    """"Cross: Use two readied weapons for a parry, you gain +2 to the parry but you can't parry any
    more attacks in the round with the limbs you just used." """
    info = g.AttackInfo(attacker_id="a")
    t = two_weapon_defender()
    cross = {"type": "parry", "weapon": "Sword", "cross": "Club"}
    base, mods, _ = g.defense_level(t, {}, cross, info)
    assert g.effective_skill(base, mods) == 14 // 2 + 3 + 2
    # an attack parried with the cross leaves its limbs in the defender's state
    r = g.attack(req("Sword", target=t, defense=cross), rolls(10, 5))
    defended = next(e for e in r.effects if e.kind == "defended")
    assert sorted(defended.data["limbs"]) == ["Club", "Sword"]
    state = record_defense({}, cross)
    for weapon in ("Sword", "Club", "Spear"):
        plain = {"type": "parry", "weapon": weapon}
        if weapon == "Spear":
            g.defense_level(t, state, plain, info)  # a third, unused weapon still parries
        else:
            with pytest.raises(RuleError, match="cannot parry again"):
                g.defense_level(t, state, plain, info)
    assert {d["type"] for d in g.available_defenses(t, state, info)} == {"dodge", "parry"}
    assert [d.get("weapon") for d in g.available_defenses(t, state, info) if d["type"] == "parry"] == ["Spear"]
    # a new round frees the limbs
    g.defense_level(t, new_round_defenses(state), {"type": "parry", "weapon": "Sword"}, info)


def test_cross_parry_within_a_rapid_strike_blocks_the_second_parry():
    """The second attack of the same turn sees the limbs of the first attack's cross parry: the Cross the
    defender picked is not open to it ("you can't parry any more attacks in the round with the limbs you
    just used"), so it meets the best defense left (Dodge 8), in the roll and in the odds."""
    t = two_weapon_defender()
    request = req("Sword", target=t, rapid_strike=1, defense={"type": "parry", "weapon": "Sword", "cross": "Club"})
    r = g.attack(request, rolls(5, 5, 5, 5))
    first, second = (a["defense"]["defense"] for a in r.details["attacks"])
    assert first == {"type": "parry", "weapon": "Sword", "cross": "Club"} and second["type"] == "dodge"
    with pytest.raises(RuleError, match="Cross or Supported"):  # a Cross its limbs cannot make at all
        g.attack(replace(request, target=replace(request.target, state=record_defense(
            {}, {"type": "parry", "weapon": "Sword", "cross": "Club"}))), rolls(5, 5))
    # the best defense left: Dodge 8 beats the Spear's parry, 10 - 4 for a second parry this round
    t_state = record_defense({}, {"type": "parry", "weapon": "Sword", "cross": "Club"})
    a = Combatant("a", "Att", sheet(), side="x")
    tgt = Combatant("t", "Tgt", t, side="y", state=t_state)
    r = g.attack(AttackRequest(a, tgt, "Sword", distance=1, options={"defense": "best"}), rolls(10, 5))
    assert r.details["attacks"][0]["defense"]["defense"]["type"] == "dodge"


def test_supported_parry_ties_up_the_free_hand():
    """"Supported: Use a readied weapon and a free hand ... you can't parry any more attacks in the
    round with the limbs you just used." """
    t = sheet(weapons={**sheet()["weapons"], "Punch": {"skill": "Brawling", "damage": "1d-2", "type": "cr",
                                                       "reach": "C", "kind": "melee", "unarmed": True}})
    state = record_defense({}, {"type": "parry", "weapon": "Sword", "supported": True})
    info = g.AttackInfo(attacker_id="a")
    with pytest.raises(RuleError):
        g.defense_level(t, state, {"type": "parry", "weapon": "Punch"}, info)
    with pytest.raises(RuleError):
        g.defense_level(t, state, {"type": "parry", "weapon": "Club", "supported": True}, info)


# --- "Injury": shock lasts the victim's next turn; collapse knocks out ----

def test_shock_clears_after_the_victims_next_turn():
    """"Shock gives the respective penalties to IQ and DX skills on your next turn": the shock the
    victim carried into its turn clears when that turn ends; shock taken during it is kept."""
    assert shock_after_turn(3, 3) == 0
    assert shock_after_turn(4, 1) == 3
    assert shock_after_turn(0, 2) == 0


def test_a_failed_collapse_roll_knocks_the_character_out():
    """"Below 0 HP ... at the start of your turn roll HT on a failure you fall unconscious";
    Do Nothing: "You won't fall unconscious due to low HP"."""
    hurt = sheet(HT=10, hp_current=-2)
    out = collapse(hurt, rolls(11))
    assert not out["check"].success and out["conditions"] == ["unconscious"]
    assert collapse(hurt, rolls(10))["conditions"] == []
    assert collapse(hurt, rolls(), maneuver="do_nothing") == {"check": None, "conditions": []}
    assert collapse(sheet(hp_current=0), rolls())["check"] is None


def test_odds_of_a_miss_by_one_with_a_defense_match_the_attack():
    """The torso hit of a miss by 1 may still be dodged; brute force over the attack roll, the
    Dodge roll and the damage die, against ``attack_odds``."""
    attacker = sheet(skills={"Broadsword": 15})
    target = sheet(dr={"torso": 1})
    opts = dict(location="face", defense="dodge", settings={"torso_vitals_roll": False})
    odds = g.attack_odds(req("Club", attacker=attacker, target=target, **opts))
    counts = three_d6_counts()
    brute = defaultdict(float)
    skill = 15 - 5
    for total, n in counts.items():
        result = g.roll_result(total, skill)
        # the dice an attack asks for: a critical hit allows no defense roll ("critical hits" reading)
        dodges = [(None, 216)] if result == "critical success" else counts.items()
        for dodge, m in dodges:
            for damage in range(1, 7):
                faces = d3(total) + (d3(dodge) if dodge else []) + [damage] + [1, 1, 1] * 6
                r = g.attack(req("Club", attacker=attacker, target=target, **opts), ScriptedDice(faces))
                brute[r.details["injury"]] += n / 216 * m / 216 / 6
    for k in set(brute) | set(odds["injury"]):
        assert odds["injury"].get(k, 0.0) == pytest.approx(brute.get(k, 0.0), abs=1e-12)
