"""Rule flows of issue #33 played from the users' screens (GM laptop, two phones, the 1080p table screen),
three rounds each: the Savage Worlds surprise (Savage Worlds (SWADE) combat reference, Surprise: "Attackers
are on Hold. Victims must make a Notice check ... Failure: no card, cannot act in first round"), where the
attackers act from Hold in round 1 from the phone and the GM page and everyone is dealt in from round 2."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_fights import GRID, Table


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seed 5 (the game "savage_worlds skirmish"): the Bandit's Notice roll fails (checked from the log)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "5")


def wait_for(table: Table, check, what: str) -> None:
    for _ in range(60):
        if check(table.state()):
            return
        table.gm.wait_for_timeout(100)
    raise AssertionError(what)


def test_savage_worlds_surprise_three_rounds_attackers_act_from_hold_on_phone_and_gm_page(seeded_dice, server,
                                                                                           new_page, shot):
    places = {"Mira": (2, 2), "Theo": (2, 3), "Guard": (1, 2), "Bandit": (3, 2)}
    table = Table(server, new_page, "savage_worlds", GRID, places)
    gm, mira, theo = table.gm, table.phones["Mira"], table.phones["Theo"]
    table.gm.locator(f"#combat input[name=surprised][value='{table.ids['Bandit']}']").check()
    gm.click("#combat button:has-text('Start fight')")
    for page in table.pages:  # nobody left the order: the attackers on Hold and the surprised victim too
        expect(page.locator("#combat .turn-order li")).to_have_count(4)
        expect(page.locator("#combat li.current")).to_have_count(0)
    table.expect_in_logs("Bandit: Surprised (failed Notice), no action card this round")
    for name in ("Mira", "Theo", "Guard"):
        expect(table.screen.locator(f"#combat .turn-order li[data-token-id='{table.ids[name]}']")).to_contain_text(
            "On Hold")
    expect(table.screen.locator(f"#combat .turn-order li[data-token-id='{table.ids['Bandit']}']")).to_contain_text(
        "Surprised")
    # each phone's bar offers its own token's Act from Hold; the GM's page offers the Guard's
    for phone, name in ((mira, "Mira"), (theo, "Theo")):
        bar = phone.locator("#turn-bar")
        expect(bar).to_be_visible()
        expect(bar).to_contain_text("On Hold")
        expect(bar.locator("button", has_text=f"{name}: Act from Hold now")).to_be_visible()
        expect(bar.locator("button")).to_have_count(1)  # only its own token
    held = gm.locator("#combat details.off-turn-actions", has_text="Guard may, off turn")
    expect(held.locator("button", has_text="Act from Hold now")).to_be_visible()
    shot(gm, "flow-sw-surprise-gm-round1")
    shot(mira, "flow-sw-surprise-phone-round1")
    shot(table.screen, "flow-sw-surprise-screen-round1")

    # round 1: Mira and Theo act from Hold from their phones, the GM for the Guard
    for phone, name in ((mira, "Mira"), (theo, "Theo")):
        phone.locator("#turn-bar button", has_text="Act from Hold now").click()
        table.expect_turn(name, 1)
        expect(phone.locator("#turn-bar")).to_contain_text("Your turn")
        table.end_my_turn(name)
    table.expect_turn(None, 1)
    held.locator("button", has_text="Act from Hold now").click()
    table.expect_turn("Guard", 1)
    shot(gm, "flow-sw-surprise-gm-guard-acts")
    table.next_turn(gm, "Next turn")

    # rounds 2 and 3: every token is dealt a card and acts on it
    for rnd in (2, 3):
        wait_for(table, lambda s: s["combat"]["round"] == rnd, f"round {rnd} begins")
        seen = []
        while len(seen) < 4:
            combat = table.state()["combat"]
            assert combat["round"] == rnd and len(combat["order"]) == 4 and combat["current"], combat
            name = table.names[combat["current"]]
            assert name not in seen
            seen.append(name)
            table.expect_turn(name, rnd)
            for page in table.pages:
                expect(page.locator("#combat .turn-order li")).to_have_count(4)
                expect(page.locator("#combat .turn-order .chip", has_text="On Hold")).to_have_count(0)
            if rnd == 2 and len(seen) == 1:
                shot(gm, "flow-sw-surprise-gm-round2")
                shot(mira, "flow-sw-surprise-phone-round2")
                shot(table.screen, "flow-sw-surprise-screen-round2")
            if name in table.phones:
                table.end_my_turn(name)
            else:
                table.next_turn(gm, "Next turn")
        assert sorted(seen) == sorted(places)
        dealt = [e["text"] for e in table.state()["log"] if re.match(r"\w+ is dealt \w+", e["text"])]
        assert {t.split()[0] for t in dealt[-4:]} == set(places), dealt
    assert table.state()["combat"]["round"] == 4
