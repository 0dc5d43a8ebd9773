"""phase/TN: a token a shot takes out of the fight is skipped in the phase's order (issue #33).

Phase/TN Combat Sequence, "Initiative and Actions": a phase's shots are rolled after the next
phase's initiative, so the one who declares first may fall to them. The fallen is then never the
token to declare: the GM page and the table screen move on to the next declarer, and the fight
plays on without it (it was offered Fire, which the rules then refused: "Brute is not in the fight")."""

from __future__ import annotations

from playwright.sync_api import expect

from rules.phase_tn import SYSTEM
from test_fights import seeded_dice  # noqa: F401  (a fixture: the same dice every run)
from test_phone_turn_bar import command, current, open_phone, setup

SCREEN = {"viewport": {"width": 1920, "height": 1080}}


def test_a_declarer_shot_down_is_never_current_on_any_screen(seeded_dice, server, new_page, shot):
    g, mira, ids = setup(server, "phase_tn", {"Aria": (2, 2), "Brute": (6, 2), "Cy": (6, 5)})
    # Brute: one flesh wound from down, slow to react (declares first); Aria a crack shot
    base = SYSTEM.default_sheet()
    slow = {**base, "attributes": {**base["attributes"], "reflexes": 1}, "flesh": 14}
    command(server, g, {"type": "add_character", "name": "Brute", "token_id": ids["Brute"], "sheet": slow})
    command(server, g, {"type": "add_character", "name": "Aria", "token_id": ids["Aria"], "owner": mira["player_id"],
                        "sheet": {**base, "skills": {**base["skills"], "handguns": 9}}})
    gm = new_page()
    gm.goto(f"{g['urls']['gm']}")
    phone = open_phone(new_page, g, mira)
    screen = new_page(**SCREEN)
    screen.goto(g["urls"]["screen"])
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    names = {v: k for k, v in ids.items()}
    fell = False
    for _ in range(60):
        fight = current(server, g)
        if fight["due"]:
            d = fight["due"][0]
            key = mira["player_token"] if d["attacker"] == ids["Aria"] else None
            first_up = fight["current"]
            command(server, g, {"type": "attack", **d}, key)
            after = current(server, g)
            sheet = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]
            brute = next(c for c in sheet["characters"] if c["token_id"] == ids["Brute"])["sheet"]
            if int(brute.get("flesh", 0)) >= 15 or brute.get("trauma"):
                fell = True
                assert first_up == ids["Brute"] or ids["Brute"] in fight["order"], fight
                break
            continue
        who = fight["current"]
        if who is None:
            command(server, g, {"type": "next_turn"})
        elif who == ids["Aria"]:
            command(server, g, {"type": "act", "token_id": who, "action": "declare:fire",
                                "options": {"target": ids["Brute"]}}, mira["player_token"])
        else:
            command(server, g, {"type": "act", "token_id": who, "action": "wait"})
    assert fell, "Brute never fell"
    assert first_up == ids["Brute"], f"Brute was not the one to declare when hit ({names.get(first_up)})"
    # the shot took Brute out: he is neither current nor in the order, and the next declarer is
    assert after["current"] != ids["Brute"] and ids["Brute"] not in after["order"], after
    for page in (gm, screen):
        expect(page.locator("#combat li[aria-current='true']")).not_to_contain_text("Brute")
        expect(page.locator("#combat ol, #combat ul").first).not_to_contain_text("Brute")
    shot(gm, "gm-phase-tn-brute-down")
    shot(screen, "screen-1080-phase-tn-brute-down")
    # the fight plays on: whoever declares now is offered its declarations, and nothing is refused
    for _ in range(12):
        fight = current(server, g)
        if fight["round"] >= 3:
            break
        assert fight["current"] != ids["Brute"] and ids["Brute"] not in fight["order"]
        if fight["due"]:
            d = fight["due"][0]
            command(server, g, {"type": "attack", **d}, mira["player_token"] if d["attacker"] == ids["Aria"] else None)
        elif fight["current"] is None:
            command(server, g, {"type": "next_turn"})
        elif fight["current"] == ids["Aria"]:
            expect(phone.locator("#turn-bar")).to_contain_text("Your turn")
            command(server, g, {"type": "act", "token_id": ids["Aria"], "action": "wait"}, mira["player_token"])
        else:
            command(server, g, {"type": "act", "token_id": fight["current"], "action": "wait"})
    shot(phone, "phone-phase-tn-after-brute-down")
