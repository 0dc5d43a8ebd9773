"""gurps_lite: the core roll, the reference functions and their invariants."""

import pytest
from hypothesis import given, settings, strategies as st

from rules import gurps_lite as g
from rules.dice import ScriptedDice
from rules.system import RuleError, RuleSystem

ORDER = {r: i for i, r in enumerate(g.RESULTS)}


def test_system_identity():
    assert isinstance(g.SYSTEM, RuleSystem)
    assert g.SYSTEM.id == "gurps_lite"
    assert g.SYSTEM.board == "grid"
    assert g.SYSTEM.cell_size == 1.0 and g.SYSTEM.cell_unit == "yard"
    assert g.SYSTEM.sheet_template == "sheets/_gurps_lite.html"
    assert g.SYSTEM.help_template == "help/gurps_lite.html"
    sheet = g.SYSTEM.default_sheet()
    assert {f.key for f in g.SYSTEM.sheet_fields()} <= set(sheet)
    assert g.SYSTEM.default_settings() == g.default_settings()


# --- roll_result (3d6 core facts) -----------------------------------------

@pytest.mark.parametrize("roll, skill, expected", [
    (3, 3, "critical success"),
    (4, 1, "critical success"),       # 3-4 always critical
    (5, 14, "success"),
    (5, 15, "critical success"),
    (6, 15, "success"),
    (6, 16, "critical success"),
    (10, 10, "success"),
    (11, 10, "failure"),
    (16, 16, "success"),
    (17, 20, "failure"),              # 17 never succeeds, not critical at 16+
    (17, 15, "critical failure"),
    (17, 16, "failure"),
    (18, 25, "critical failure"),
    (15, 5, "critical failure"),      # 10 over skill
    (14, 5, "failure"),
])
def test_roll_result_table(roll, skill, expected):
    assert g.roll_result(roll, skill) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 18), st.integers(-10, 30), st.integers(0, 10))
def test_higher_skill_never_worse_for_same_roll(roll, skill, more):
    assert ORDER[g.roll_result(roll, skill + more)] >= ORDER[g.roll_result(roll, skill)]


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 18), st.integers(-10, 30))
def test_17_and_18_never_succeed(roll, skill):
    if roll >= 17:
        assert not g.is_success(g.roll_result(roll, skill))


def test_check_rolls_3d6_with_purpose_and_modifiers():
    dice = ScriptedDice([4, 4, 4])
    c = g.check(dice, "test", 10, [g.Modifier("x", 2, "s")], "DX")
    assert c.roll.expr == "3d6" and c.roll.purpose == "test"
    assert c.effective == 12 and c.margin == 0 and c.result == "success"


def test_success_chances_are_exact():
    assert g.success_chance(10) == pytest.approx(0.5)
    assert g.success_chance(3) == pytest.approx(4 / 216)     # 3 and 4 only
    assert g.success_chance(30) == pytest.approx(1 - 4 / 216)  # 17 and 18 fail
    c = g.result_chances(15)
    assert c["critical success"] == pytest.approx(10 / 216)  # 3, 4, 5
    assert c["critical failure"] == pytest.approx(4 / 216)   # 17, 18
    assert sum(c.values()) == pytest.approx(1)


# --- range_penalty ("Ranged Attacks") --------------------------------------

@pytest.mark.parametrize("yards, speed, expected", [
    (0, 0, 0), (5, 0, 0), (6, 0, -3), (20, 0, -3), (21, 0, -7), (100, 0, -7),
    (101, 0, -11), (500, 0, -11), (501, 0, -15), (5000, 0, -15),
    (4, 1.9, 0),     # speeds under 2 yd/s are ignored
    (4, 2, -3),      # 4 + 2 = 6: short
    (15, 10, -7),    # 25: medium
    (5.5, 0, -3),    # rounded up
])
def test_range_penalty_table(yards, speed, expected):
    assert g.range_penalty(yards, speed) == expected


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 2000), st.floats(0, 2000))
def test_range_penalty_never_better_further(a, b):
    near, far = sorted((a, b))
    assert g.range_penalty(far) <= g.range_penalty(near)


def test_range_penalty_rejects_negative():
    with pytest.raises(RuleError):
        g.range_penalty(-1)


def test_range_band_and_max():
    w = {"max": 100}
    assert g.SYSTEM.range_band(3, w) == "close"
    assert g.SYSTEM.range_band(50, w) == "medium"
    assert g.SYSTEM.range_band(101, w) is None


# --- rapid fire ------------------------------------------------------------

@pytest.mark.parametrize("shots, bonus", [
    (1, 0), (2, 0), (4, 0), (5, 1), (8, 1), (9, 2), (12, 2), (13, 3), (16, 3), (17, 4), (24, 4),
    (25, 5), (49, 5), (50, 6), (99, 6), (100, 7), (199, 7), (200, 8), (399, 8), (400, 9),
])
def test_rapid_fire_bonus_table(shots, bonus):
    assert g.rapid_fire_bonus(shots) == bonus


@pytest.mark.parametrize("margin, recoil, shots, hits", [
    (0, 2, 10, 1), (1, 2, 10, 1), (2, 2, 10, 2), (7, 2, 10, 4), (7, 3, 10, 3),
    (20, 1, 5, 5),   # never more than the shots
    (-1, 2, 10, 0),  # a miss
])
def test_extra_hits(margin, recoil, shots, hits):
    assert g.extra_hits(margin, recoil, shots) == hits


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.integers(1, 10), st.integers(1, 100), st.integers(0, 5))
def test_extra_hits_monotone_in_margin(margin, recoil, shots, more):
    assert g.extra_hits(margin + more, recoil, shots) >= g.extra_hits(margin, recoil, shots)
    assert 1 <= g.extra_hits(margin, recoil, shots) <= shots


# --- hit_location (published random column) -------------------------------

def test_hit_location_table():
    expected = {3: "skull", 4: "skull", 5: "face", 6: "right_leg", 7: "right_leg", 8: "right_arm",
                9: "torso", 10: "torso", 11: "groin", 12: "left_arm", 13: "left_leg", 14: "left_leg",
                15: "hand", 16: "foot", 17: "neck", 18: "neck"}
    assert {r: g.hit_location(r) for r in range(3, 19)} == expected
    with pytest.raises(RuleError):
        g.hit_location(2)


# --- injury ("Damage") -----------------------------------------------------

@pytest.mark.parametrize("damage, dr, kind, divisor, expected", [
    (10, 0, "cr", 1, 10),
    (10, 0, "cut", 1, 15),
    (10, 0, "imp", 1, 20),
    (10, 0, "pi-", 1, 5),
    (9, 0, "pi-", 1, 4),       # round down
    (10, 0, "pi", 1, 10),
    (10, 0, "pi+", 1, 15),
    (10, 0, "pi++", 1, 20),
    (10, 0, "burn", 1, 10),
    (10, 0, "tox", 1, 10),
    (10, 0, "cor", 1, 10),
    (10, 0, "fat", 1, 10),
    (10, 4, "imp", 1, 12),
    (10, 4, "imp", 2, 16),     # DR 4 / (2) = 2
    (10, 5, "imp", 2, 16),     # DR 5 / 2 = 2.5, rounded down to 2
    (3, 5, "imp", 1, 0),
    (9, 5, "cut", 1, 4),       # less than twice DR: wounds as cr
    (10, 5, "cut", 1, 7),      # twice DR: stays cut (5 x 1.5)
])
def test_injury_table(damage, dr, kind, divisor, expected):
    assert g.injury(damage, dr, kind, divisor) == expected


def test_injury_unknown_type():
    with pytest.raises(RuleError):
        g.injury(5, 0, "laser")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 80), st.integers(0, 40), st.integers(0, 20),
       st.sampled_from(sorted(g.WOUNDING)), st.sampled_from([1, 2, 3, 5, 10, 0.5]))
def test_more_dr_never_more_injury(damage, dr, more, kind, divisor):
    assert g.injury(damage, dr + more, kind, divisor) <= g.injury(damage, dr, kind, divisor)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 80), st.integers(0, 40), st.integers(0, 20),
       st.sampled_from(sorted(g.WOUNDING)), st.sampled_from(sorted(k for k in g.LOCATIONS if k != "weapon")))
def test_more_rigid_dr_never_more_injury_at_any_location(damage, dr, more, kind, loc):
    a = g.location_injury(damage, dr, kind, loc, hp=12)["injury"]
    b = g.location_injury(damage, dr + more, kind, loc, hp=12)["injury"]
    assert b <= a


def test_location_wounding_multipliers():
    wm = g.wounding_multiplier
    assert wm("cr", "skull") == 4 and wm("tox", "skull") == 1       # note 3
    assert wm("imp", "eye") == 4                                      # note 2
    assert wm("cor", "face") == 1.5                                   # note 4
    assert wm("cr", "neck") == 1.5 and wm("cut", "neck") == 2 and wm("cor", "neck") == 1.5  # note 9
    assert wm("imp", "vitals") == 3 and wm("pi", "vitals") == 3 and wm("cr", "vitals") == 1  # note 10
    assert wm("tbb", "vitals") == 2
    assert wm("imp", "left_arm") == 1 and wm("pi+", "right_hand") == 1 and wm("cut", "left_leg") == 1.5  # note 5


def test_cripple_threshold_caps_injury():
    # HP 10: an arm is crippled by more than 5 injury, and injury past that is lost (note 5)
    r = g.location_injury(20, 0, "cut", "right_arm", hp=10)
    assert r["crippled"] and r["injury"] == 6
    r = g.location_injury(5, 0, "cr", "right_arm", hp=10)
    assert not r["crippled"] and r["injury"] == 5
    # hand: HP/3; eye: HP/10
    assert g.location_injury(10, 0, "cr", "left_hand", hp=12)["injury"] == 5
    assert g.location_injury(3, 0, "imp", "eye", hp=10)["crippled"]


def test_blunt_trauma_through_flexible_armour():
    # absorbed: 1 injury per 10 damage of pi/cut/imp, per 5 of cr
    assert g.location_injury(12, 12, "pi", "torso", flexible=True)["injury"] == 1
    assert g.location_injury(10, 12, "cr", "torso", flexible=True)["injury"] == 2
    assert g.location_injury(9, 12, "imp", "torso", flexible=True)["injury"] == 0
    assert g.location_injury(10, 12, "cr", "torso", flexible=False)["injury"] == 0
    assert g.location_injury(10, 12, "burn", "torso", flexible=True)["injury"] == 0


def test_shock_and_major_wound():
    assert g.shock(1) == 1 and g.shock(3) == 3 and g.shock(10) == 4
    assert g.shock(3, double=True) == 6
    assert g.is_major_wound(6, 11) and not g.is_major_wound(5, 11)
    assert g.is_major_wound(1, 11, crippled=True)


def test_parse_damage():
    assert g.parse_damage("2d+1") == ("2d6+1", 2, 1)
    assert g.parse_damage("1d-2") == ("1d6-2", 1, -2)
    assert g.parse_damage("3d") == ("3d6", 3, 0)
    assert g.parse_damage("sw+1", 11) == ("1d6+2", 1, 2)     # ST 11 swing 1d+1
    assert g.parse_damage("thr", 13) == ("1d6", 1, 0)
    with pytest.raises(RuleError):
        g.parse_damage("lots")
