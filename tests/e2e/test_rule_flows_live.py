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
    held = gm.locator("#combat details.off-turn-actions", has_text="Off turn, Guard may")
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


HIT = re.compile(r"Chance to hit: (\d+\.\d)%")


def hit_chance(page) -> float:
    return float(HIT.search(page.locator("#attack-preview .hit-chance").inner_text()).group(1))


def play_to(table: Table, name: str, rnd: int) -> None:
    """Pass the turns (a player's from the phone's bar, the rest from the GM's page) until it is ``name``'s."""
    for _ in range(12):
        if table.whose_turn() == name:
            assert table.state()["combat"]["round"] == rnd
            return
        who = table.whose_turn()
        if who in table.phones:
            table.end_my_turn(who)
        else:
            table.next_turn(table.gm, "Next turn")
    raise AssertionError(f"{name}'s turn never came")


def test_gurps_lite_all_out_options_change_the_odds_and_the_roll_from_the_phone(seeded_dice, server, new_page,
                                                                                  shot):
    """3d6 document, "Maneuvers", All Out Attack (Melee): Determined +4 to hit, Strong +2 damage, Double two
    attacks. Mira chooses the maneuver on her phone, then each round another option on the attack card."""
    places = {"Mira": (4, 3), "Theo": (1, 6), "Goon": (5, 3)}
    table = Table(server, new_page, "gurps_lite", GRID, places)
    phone = table.phones["Mira"]
    table.start_fight()
    for rnd, variant, label in ((1, "determined", "All-Out Attack (Determined)"),
                                (2, "strong", "All-Out Attack (Strong): damage"), (3, "double", None)):
        play_to(table, "Mira", rnd)
        group = phone.locator("#combat .turn-actions details.action-group", has=phone.locator(
            "button", has_text="All-Out Attack (melee)"))
        if group.get_attribute("open") is None:  # a long list folds its groups: open the turn's
            group.locator("summary").click()
        table.act(phone, "All-Out Attack (melee)")
        expect(phone.locator("#log")).to_contain_text("Mira: All-Out Attack (melee)")
        assert table.preview(phone, "Mira", "Goon", "Broadsword") is None
        plain = hit_chance(phone)
        before = phone.locator("#attack-preview ol.outcomes").inner_text()
        phone.locator("#attack-preview select[data-option=variant]").select_option(variant)
        expect(phone.locator("#attack-preview select[data-option=variant]")).to_have_value(variant)
        expect(phone.locator("#attack-preview ol.outcomes")).not_to_have_text(before)
        if label:
            expect(phone.locator("#attack-preview .mods")).to_contain_text(label)
        if variant == "strong":  # the same chance to hit, more damage
            expect(phone.locator("#attack-preview .hit-chance")).to_have_text(f"Chance to hit: {plain:.1f}%")
        else:  # a better chance to hit (Determined's +4; Double's two attacks)
            for _ in range(50):
                if hit_chance(phone) > plain:
                    break
                phone.wait_for_timeout(100)
            sel = phone.locator("#attack-preview select[data-option=variant]").input_value()
            assert hit_chance(phone) > plain, (variant, plain, sel)
        phone.locator("#attack-preview .hit-chance").scroll_into_view_if_needed()
        shot(phone, f"flow-3d6-all-out-{variant}-phone")
        if rnd == 1:
            shot(table.gm, "flow-3d6-all-out-gm")
        text = table.roll_attack(phone)
        if variant == "double":
            assert text.count(" vs 13 ") == 2, text  # two attacks at the plain skill
        else:
            assert f" vs {17 if variant == 'determined' else 13} " in text, text
        detail = [e for e in table.state()["log"] if (e.get("detail") or {}).get("attack")][-1]["detail"]["attack"]
        assert detail["details"]["variant"] == variant
        if variant == "strong":
            for dmg in (d for a in detail["details"]["attacks"] for d in a["damage"]):
                assert {"label": "All-Out Attack (Strong)", "source": "Maneuvers", "value": 2} in dmg["damage_modifiers"]
        if rnd == 1:
            shot(table.screen, "flow-3d6-all-out-screen")
        table.end_my_turn("Mira")


def test_gurps_lite_one_foe_ticked_surprised_the_attackers_act_first_for_three_rounds(seeded_dice, server,
                                                                                       new_page, shot):
    """3d6 document, "Turn Order": "the attackers go first in initiative and the defenders will be mentally
    stunned". The GM ticks one of two foes; Mira and Theo act first every round, from their phones."""
    places = {"Mira": (4, 3), "Theo": (3, 4), "Goon": (9, 3), "Brute": (9, 4)}
    table = Table(server, new_page, "gurps_lite", GRID, places)
    table.gm.locator(f"#combat input[name=surprised][value='{table.ids['Brute']}']").check()
    table.start_fight()
    table.expect_in_logs("Surprise: the attackers (pc) go first, then the side caught off guard (npc)")
    heroes = {table.ids["Mira"], table.ids["Theo"]}
    for page in table.pages:  # every screen lists the heroes first
        rows = page.locator("#combat .turn-order li")
        expect(rows).to_have_count(4)
        assert {rows.nth(0).get_attribute("data-token-id"), rows.nth(1).get_attribute("data-token-id")} == heroes
    shot(table.gm, "flow-3d6-surprise-gm")
    shot(table.phones["Mira"], "flow-3d6-surprise-phone")
    shot(table.screen, "flow-3d6-surprise-screen")
    for rnd in (1, 2, 3):
        seen = []
        for _ in range(4):
            combat = table.state()["combat"]
            assert combat["round"] == rnd
            name = table.names[combat["current"]]
            seen.append(name)
            if name in table.phones:
                expect(table.phones[name].locator("#turn-bar")).to_contain_text("Your turn")
                table.end_my_turn(name)
            else:
                if name == "Brute" and rnd == 1:  # mentally stunned: Do Nothing only
                    expect(table.gm.locator("#combat .turn-actions button", has_text="Do Nothing")).to_be_attached()
                table.next_turn(table.gm, "Next turn")
        assert set(seen[:2]) == {"Mira", "Theo"}, (rnd, seen)
    assert table.state()["combat"]["round"] == 4


def test_after_start_fight_the_gms_attack_card_follows_the_acting_token_and_previews(seeded_dice, server, new_page):
    """#33: after Start fight the GM's attack card kept the first token (with "Unarmed") it had started on
    before the fight, and the first Preview was refused. A live refresh now keeps only the user's picks."""
    places = {"Mira": (4, 3), "Theo": (4, 4), "Goon": (5, 3), "Brute": (5, 4)}  # each in reach of a foe
    table = Table(server, new_page, "savage_worlds", GRID, places)
    gm = table.gm
    form = gm.locator("#attack-form")
    table.start_fight()
    for rnd_turn in range(3):  # three turns in a row: the card follows each
        current = table.state()["combat"]["current"]
        expect(form.locator("select[name=attacker]")).to_have_value(current)
        target = form.locator("select[name=target]").input_value()
        assert (table.names[target] in ("Mira", "Theo")) != (table.names[current] in ("Mira", "Theo"))  # a foe
        expect(form.locator("select[name=weapon] option:checked")).to_have_attribute("data-attacker", current)
        gm.evaluate("document.getElementById('flash').className = 'flash'")
        form.locator("button[data-attack=preview_attack]").click()
        refused = gm.locator("#flash.shown.error")
        expect(gm.locator("#attack-preview .attack-preview").or_(refused).first).to_be_visible()
        assert not refused.count(), refused.inner_text()
        expect(gm.locator("#attack-preview .attack-preview")).to_contain_text(table.names[current] + " attacks ")
        table.next_turn(gm, "Next turn")
