"""Atomic Tomorrow: the demo rocket-port (DEMO_ZONES) and its combatants (sample_encounter) play by the rules."""

from __future__ import annotations

import json

from rules import atomic_tomorrow as at
from rules.atomic_tomorrow.data import DEMO_ZONES
from rules.atomic_tomorrow.sheet import sample_encounter
from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant
from rules.zones import ZoneMap

SYSTEM = at.SYSTEM


def zone_map() -> ZoneMap:
    zm = ZoneMap()
    for z in DEMO_ZONES["zones"]:
        zm.add_zone(z["id"], tags={"cover": z.get("cover", "none")})
    for z in DEMO_ZONES["zones"]:
        for other in z["adjacent"]:
            zm.connect(z["id"], other)
    return zm


def test_the_demo_zone_map_is_plain_data_with_links_both_ways_and_known_cover():
    json.dumps(DEMO_ZONES)
    zones = {z["id"]: z for z in DEMO_ZONES["zones"]}
    assert len(zones) == len(DEMO_ZONES["zones"]) >= 4
    for z in zones.values():
        assert z["name"] and z.get("cover", "none") in at.COVER_LEVELS
        assert all(z["id"] in zones[o]["adjacent"] for o in z["adjacent"]), z["id"]
    zm = zone_map()
    assert all(zm.zone_distance("landing_pad", z) is not None for z in zones)
    assert at.range_between(zm, "landing_pad", "control_tower") == "distant"
    assert at.range_between(zm, "landing_pad", "cargo_bay") == "far"


def test_the_sample_encounter_is_valid_and_every_combatant_can_attack_someone():
    cast = sample_encounter()
    json.dumps(cast)
    assert {c["side"] for c in cast} == {"pc", "npc"} and len({c["name"] for c in cast}) == len(cast)
    assert sample_encounter() == cast and sample_encounter()[0]["sheet"] is not cast[0]["sheet"]
    zm = zone_map()
    fighters = [Combatant(f"c{i}", c["name"], SYSTEM.validate_sheet(c["sheet"]), c["position"], c["side"])
                for i, c in enumerate(cast)]
    for a in fighters:
        reached = False
        for b in fighters:
            if b.side == a.side:
                continue
            distance = zm.zone_distance(a.position, b.position)
            cover = zm.tag(b.position, "cover")
            for w in SYSTEM.weapons(a.sheet):
                if SYSTEM.range_band(distance, w["data"]) is None:
                    continue
                req = AttackRequest(a, b, w["key"], distance, cover)
                SYSTEM.attack(req, SeededDice(1))
                assert abs(sum(o["p"] for o in SYSTEM.odds(req)["outcomes"]) - 1) < 1e-9
                reached = True
        assert reached, a.name
    update = SYSTEM.begin_fight(fighters, SeededDice(9))
    assert sorted(update.order) == sorted(c.id for c in fighters)
