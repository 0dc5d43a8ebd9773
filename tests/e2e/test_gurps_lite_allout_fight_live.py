"""3d6: a fight of three rounds played on the screens after the All-Out fixes (#33). Mira's phone picks
All-Out Attack (melee) and on the attack card its option (Determined, then Double), then a plain Attack;
the foes attack on the GM's page; Mira is asked for her defense only when no All-Out Attack holds
(*3d6 Combat*, "Maneuvers": All-Out Attack, no active defense until the next turn)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import rules

from test_attack_choices import PLACES
from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)

pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

S = rules.get("gurps_lite")
PLAN = {1: ("All-Out Attack (melee)", "determined", "All-Out Attack (Determined)"),
        2: ("All-Out Attack (melee)", "double", None),
        3: ("Attack", None, None)}


def test_three_rounds_with_all_out_attacks_from_the_phone(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "gurps_lite", GRID, PLACES)
    # Mira lasts three rounds whatever the dice: no major wound (over half her HP in one blow) stuns her
    sheet = {**S.default_sheet(), "HP": 40, "hp_current": 40}
    status, ack = server.api("POST", f"/api/games/{table.game['id']}/commands", {
        "type": "add_character", "name": "Mira", "token_id": table.ids["Mira"], "sheet": sheet},
        table.game["gm_token"])
    assert status == 200, ack
    table.start_fight()
    phone = table.phones["Mira"]
    mira_rolls, turns, seen = [], 0, []
    while table.state()["combat"]["round"] <= 3:
        turns += 1
        assert turns < 30
        rnd = table.state()["combat"]["round"]
        name = table.whose_turn()
        table.expect_turn(name, rnd)
        if name == "Mira":
            maneuver, variant, label = PLAN[rnd]
            # the maneuver's group, folded on the phone (its usual maneuvers come first): opened with a tap
            button = phone.locator("#combat details.action-group button", has_text=maneuver).first
            group = phone.locator("#combat details.action-group").filter(
                has=phone.locator("button", has_text=maneuver)).first
            if group.get_attribute("open") is None:
                group.locator("summary").click()
            expect(button).to_be_visible()
            button.click()
            table.expect_in_logs(f"Mira: {maneuver}")
            foe = next(f for f in ("Goon", "Brute") if not any(
                word in token_text(table, f).lower() for word in ("unconscious", "dead")))
            assert table.preview(phone, "Mira", foe, "Broadsword") is None
            card = phone.locator("#attack-preview")
            if variant:
                card.locator("select[data-option=variant]").select_option(variant)
                expect(card.locator("select[data-option=variant]")).to_have_value(variant)
            if label:
                expect(card.locator(".mods")).to_contain_text(label)
            if rnd == 1:
                shot(phone, "gurps-allout-phone-determined")
            text = table.roll_attack(phone)
            mira_rolls.append(text)
            entry = [e for e in table.state()["log"] if (e.get("detail") or {}).get("attack")][-1]
            details = entry["detail"]["attack"]["details"]
            assert (details.get("variant") or None) == variant, details
            if variant == "double":
                assert len(details["attacks"]) == 2, details
            if variant == "determined":
                mods = {m["label"]: m["value"] for m in details["attacks"][0]["check"]["modifiers"]}
                assert mods.get("All-Out Attack (Determined)") == 4, mods
            table.end_my_turn("Mira")
        elif name == "Theo":
            table.end_my_turn("Theo")
        else:
            seen.append(foe_turn(table, name))
            table.next_turn(table.gm, "Next turn")
    assert len(mira_rolls) == 3
    # foes attacked Mira both while her All-Out Attack held (rolled at once) and when she could defend (asked)
    assert "held" in seen and "asked" in seen and "not asked" not in seen, seen
    table.expect_turn(table.whose_turn(), 4)
    table.shots(shot, "gurps-allout-three-rounds")
    table.gm.click("#combat button:has-text('End fight')")


def token_text(table: Table, name: str) -> str:
    """What the GM's map shows on a token: its name and badges."""
    return table.gm.locator(f"#token-{table.ids[name]}").text_content() or ""


def command(table: Table, body: dict) -> tuple[int, dict]:
    return table.server.api("POST", f"/api/games/{table.game['id']}/commands", body, table.game["gm_token"])


def foe_turn(table: Table, name: str) -> str:
    """The GM's foe takes the Attack maneuver and attacks Mira when the rules let it (not stunned, not
    down); Mira's phone is asked for her defense unless her All-Out Attack holds."""
    status, _ = command(table, {"type": "act", "token_id": table.ids[name], "action": "attack"})
    if status != 200:
        return "no attack"
    status, ack = command(table, {"type": "attack", "attacker": table.ids[name], "target": table.ids["Mira"],
                                  "weapon": "Broadsword"})
    if status != 200:
        return "no attack"
    pending = table.state().get("pending_defense")
    held = "All-Out Attack: no defense" in token_text(table, "Mira")
    if pending:
        assert not held, "Mira has no defense while her All-Out Attack holds: she must not be asked"
        choice = table.phones["Mira"].locator("#defense-prompt.asking button[data-defense]:enabled").first
        expect(choice).to_be_visible()
        choice.click()
        expect(table.phones["Mira"].locator("#defense-prompt.asking")).to_have_count(0)
        return "asked"
    return "held" if held else "not asked"
