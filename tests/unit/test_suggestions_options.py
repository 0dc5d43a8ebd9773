"""The GM's foes (#60): more of each system's options in the plans, where the rules have them. A 3d6 foe whose gun
is empty reloads (the Ready maneuver: "Ranged Attacks", a weapon's Shots), its why line saying so, and its step
is accepted; a Savage Worlds foe whose attack gets Gang Up's bonus says so in its why line ("Gang Up +2"), and
only then. (Savage Worlds' rules here keep no count of shots: no reload there.)"""

from __future__ import annotations

import rules
from rules.board import Board
from webapp.game.planning import suggestions

from tabledice import play
from test_suggestions import _weapons, checked, fight


def _pistol(loaded: int) -> dict:
    return {"Pistol": {**_weapons("gurps_lite", "Pistol")["Pistol"], "loaded": loaded}}


def test_a_3d6_foe_whose_gun_is_empty_reloads_and_says_why():
    game, ids = fight("gurps_lite", Board(20, 10), (14, 4), [("Ann", 4, 4)], foe_sheet={"weapons": _pistol(0)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["steps"] == [{"type": "act", "token_id": ids["Orc"], "action": "reload:Pistol", "options": {}}]
    assert best["weapon"] == "Pistol" and best["target"] is None and best["hit"] is None
    assert "Pistol is empty: it reloads" in str(best["why"])
    sheet = next(c for c in game.characters.values() if c.token_id == ids["Orc"]).sheet
    assert sheet["weapons"]["Pistol"].get("loaded") == 0  # reckoned on a copy
    # with shots left it shoots, and no plan reloads
    game, ids = fight("gurps_lite", Board(20, 10), (14, 4), [("Ann", 4, 4)], foe_sheet={"weapons": _pistol(3)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"][0]["target"] == ids["Ann"]
    assert not any(s.get("action", "").startswith("reload") for p in found["plans"] for s in p["steps"])


def _beside_ann(fellows: int):
    """The Orc beside Ann, and ``fellows`` of the GM's goblins beside her too."""
    game, ids = fight("savage_worlds", Board(12, 8), (6, 3), [("Ann", 5, 3)],
                      foe_sheet={"weapons": _weapons("savage_worlds", "Long sword")})
    for name, x, y in (("Gob", 5, 2), ("Gnoll", 4, 3))[:fellows]:
        play(game, {"type": "add_token", "name": name, "x": x, "y": y})
        tid = next(t.id for t in game.tokens.values() if t.name == name)
        play(game, {"type": "add_character", "name": name, "token_id": tid,
                    "sheet": {**rules.get("savage_worlds").default_sheet(), "name": name}})
    return game, ids


def test_a_savage_worlds_foe_ganging_up_says_gang_up_in_its_why():
    game, ids = _beside_ann(2)
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    melee = [p for p in found["plans"] if p["weapon"] == "Long sword" and p["target"] == ids["Ann"]]
    assert melee and all("Gang Up +2" in str(p["why"]) for p in melee)
    # alone beside her: no Gang Up, and the why does not name it
    game, ids = _beside_ann(0)
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"] and not any("Gang Up" in str(p["why"]) for p in found["plans"])
