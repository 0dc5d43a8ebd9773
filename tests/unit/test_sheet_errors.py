"""Each system's sheet check says where and why apart (a SheetError): the path leads to the refused
entry, from the sheet's top down to the field of a weapon, and the reason is in words, without the
path. The sheet editor puts the reason beside the field the path leads to."""

from __future__ import annotations

import copy

import pytest

import rules
from rules.system import SheetError


def refusal(system_id: str, change) -> SheetError:
    system = rules.get(system_id)
    sheet = copy.deepcopy(system.default_sheet())
    change(sheet)
    with pytest.raises(SheetError) as caught:
        system.validate_sheet(sheet)
    return caught.value


CASES = [
    ("savage_worlds", lambda s: s["skills"].update(fighting="d7"), ("skills", "fighting"), "not a die: 'd7'"),
    ("savage_worlds", lambda s: s["attributes"].update(vigor="d9"), ("attributes", "vigor"), "not a die: 'd9'"),
    ("savage_worlds", lambda s: s["weapons"]["Colt Peacemaker"].update(range="12/24"),
     ("weapons", "Colt Peacemaker", "range"), "a range reads like 12/24/48, not '12/24'"),
    ("savage_worlds", lambda s: s["weapons"]["Long sword"].update(ap=-1), ("weapons", "Long sword", "ap"),
     "cannot be negative"),
    ("savage_worlds", lambda s: s.update(wounds=5), ("wounds",), "at most 3, not 5"),
    ("gurps_lite", lambda s: s["weapons"]["Pistol"].update(damage="lots"), ("weapons", "Pistol", "damage"),
     "cannot read weapon damage 'lots'"),
    ("gurps_lite", lambda s: s["weapons"]["Punch"].update(type="zap"), ("weapons", "Punch", "type"), "one of cr, cut"),
    ("gurps_lite", lambda s: s.update(encumbrance=7), ("encumbrance",), "4 or less, not 7"),
    ("gurps_lite", lambda s: s["skills"].update(Tactics="ten"), ("skills", "Tactics"), "a whole number, not 'ten'"),
    ("tesseris_ads", lambda s: s["weapons"]["rifle"].update(rof=[1, "x"]), ("weapons", "rifle", "rof", 1),
     "a whole number, not 'x'"),
    ("tesseris_ads", lambda s: s["weapons"]["pistol"].update(range=0), ("weapons", "pistol", "range"), "1 or more, not 0"),
    ("tesseris_ads", lambda s: s.update(statuses=["Dazed", "Sleepy"]), ("statuses", 1, "name"),
     "unknown status effect 'Sleepy'"),
    ("tesseris_ads", lambda s: s["armour"].update(ap=-2), ("armour", "ap"), "0 or more, not -2"),
    ("atomic_tomorrow", lambda s: s["weapons"][1].update(wound_rating=9), ("weapons", 1, "wound_rating"),
     "a Wound Rating is 1 to 4, not 9"),
    ("atomic_tomorrow", lambda s: s["weapons"][0].update(ranges=[]), ("weapons", 0, "ranges"), "lists no range band"),
    ("atomic_tomorrow", lambda s: s.update(brawn=0), ("brawn",), "1 to 30, not 0"),
    ("atomic_tomorrow", lambda s: s.update(armour="plate"), ("armour",), "one of none, light, medium, heavy"),
    ("phase_tn", lambda s: s["weapons"][0].update(mode="burst"), ("weapons", 0, "mode"), "must be one of single"),
    ("phase_tn", lambda s: s["weapons"][0].update(damage="2x6"), ("weapons", 0, "damage"), ""),
    ("phase_tn", lambda s: s.update(trauma={"elbow": 1}), ("trauma", "elbow", "location"), "not a location"),
    ("phase_tn", lambda s: s["attributes"].update(strength=-1), ("attributes", "strength"), "0 or more (got -1)"),
]


@pytest.mark.parametrize("system_id, change, path, reason", CASES)
def test_a_refusal_names_the_path_to_the_entry_and_the_reason_in_words(system_id, change, path, reason):
    exc = refusal(system_id, change)
    assert exc.path == path
    assert reason in exc.reason
    assert not exc.reason.startswith(".".join(map(str, path)))  # the reason alone, no internal key
    assert exc.reason in str(exc)  # the message is still the whole story


def test_the_messages_stay_what_they_were_where_the_app_shows_them():
    assert str(refusal("savage_worlds", lambda s: s["skills"].update(fighting="d7"))).startswith(
        "skills.fighting: not a die: 'd7'")
    assert str(refusal("phase_tn", lambda s: s["weapons"][0].update(mode="burst"))) == (
        "weapons.Sidearm.mode must be one of single, semi, auto")
    assert str(refusal("atomic_tomorrow", lambda s: s.update(brawn=0))) == "BRAWN is 1 to 30, not 0"
    assert str(refusal("tesseris_ads", lambda s: s["weapons"]["rifle"].update(rof=[1, "x"]))) == (
        "weapons.rifle.rof[1]: a whole number, not 'x'")
