"""The odds of a Savage Worlds area attack before the roll: the attack's one trait roll, and each
token under the template, checked against many seeded rolls of the attack itself."""

from rules import savage_worlds as sw
from rules.board import Board
from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant

S = sw.SYSTEM


def _request(template="medium", centre=(6, 2)):
    hero = S.default_sheet()
    hero["weapons"] = {**hero["weapons"], "Grenade": {"damage": "3d6", "range": "5/10/20", "thrown": True}}
    orc = {**S.default_sheet(), "wild_card": False}
    return AttackRequest(
        attacker=Combatant("hero", "Hero", hero, (2, 2), "pc"),
        target=Combatant("orc1", "Orc 1", orc, (6, 2), "npc"),
        weapon="Grenade", distance=4, options={"template": template, "centre": list(centre)},
        board=Board(12, 8),
        others=[Combatant("orc2", "Orc 2", {**orc, "prone": True}, (7, 3), "npc"),
                Combatant("elf", "Elf", orc, (11, 7), "npc")],
    )


def test_area_odds_list_each_token_under_the_template_and_sum_to_one():
    odds = S.odds(_request())
    assert abs(sum(o["p"] for o in odds["outcomes"]) - 1) < 1e-9
    assert [t["id"] for t in odds["targets"]] == ["orc1", "orc2"]
    for t in odds["targets"]:
        assert abs(sum(o["p"] for o in t["outcomes"]) - 1) < 1e-9
    orc1, orc2 = odds["targets"]
    assert orc2["hit"] < orc1["hit"]  # prone: 4 less damage from an area attack
    assert "deviates" in odds["note"]


def test_area_odds_match_the_attack_rolled_many_times():
    request = _request()
    odds = S.odds(request)
    success = sum(o["p"] for o in odds["outcomes"] if o["label"].startswith("hit"))
    n, hits, shaken_or_worse = 3000, 0, 0
    for i in range(n):
        result = S.attack(request, SeededDice(f"area-{i}"))
        if result.hit:
            hits += 1
            if any(e.target == "orc1" for e in result.effects):
                shaken_or_worse += 1
    assert abs(hits / n - success) < 0.03
    p_effect = sum(o["p"] for o in odds["targets"][0]["outcomes"] if o["label"] not in
                   ("critical failure", "miss", "hit: no effect"))
    # on a success Orc 1 is under the blast as aimed: its effects' share matches the odds' non-miss lines
    assert abs(shaken_or_worse / n - p_effect) < 0.03
