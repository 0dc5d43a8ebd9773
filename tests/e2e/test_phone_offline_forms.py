"""The GM page's htmx forms (#35): a command posted from a form (the token list's copy and remove buttons,
to ``/games/<id>/commands``) carries its id too, waits while the link is down, goes out in order on
return, and is done exactly once even when its answer was lost on the way. The GM runs the table from a
phone here (390 px): real Chromium (Playwright's ``set_offline``) against a real ``tacmap serve``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import OFFLINE
from test_phone_offline import open_pages, table
from test_table_screens import PHONE, state

COMMANDS = re.compile(r"/games/[^/]+/commands$")


def gm_phone(new_page):
    page = new_page(**PHONE)
    page.on("dialog", lambda dialog: dialog.accept())  # "Remove Goblin from the map?"
    return page


@pytest.mark.console_errors(*OFFLINE, r"^htmx:(sendError|afterRequest), \[object HTMLFormElement\]",
                            why="the page loses the network (set_offline) as a form is sent: htmx logs the send it lost")
def test_a_form_command_whose_answer_is_lost_as_the_phone_goes_offline_is_done_once(server, new_page, shot):
    game, mira, hero, goblin = table(server)
    _gm, screen, phone = open_pages(server, game, mira, new_page)
    gm = gm_phone(new_page)
    posts: list[str | None] = []

    def lose_the_first_answer(route):
        posts.append(route.request.headers.get("x-command-id"))
        if len(posts) == 1:
            route.fetch()  # the server does it...
            gm.context.set_offline(True)  # ...and the Wi-Fi drops before its answer is back
            route.abort("internetdisconnected")
        else:
            route.continue_()

    gm.route(COMMANDS, lose_the_first_answer)
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_attached()
    seq0 = state(server, game)["seq"]

    copy = gm.locator(f"#row-{goblin} button", has_text="copy")
    copy.click()
    expect(gm.locator("#link-banner.shown")).to_contain_text("Reconnecting")
    expect(gm.locator("#link-banner")).to_contain_text("1 change waits")
    expect(copy).to_have_class(re.compile(r"\bwaiting\b"))
    assert gm.evaluate("window.tacmap.waiting()") == ["duplicate_token"]
    assert state(server, game)["seq"] == seq0 + 1, "the server did the copy once"
    copy.scroll_into_view_if_needed()
    shot(gm, "gm-phone-offline-form-copy-waiting")

    gm.context.set_offline(False)
    expect(gm.locator("#conn.ok")).to_be_attached(timeout=20000)
    expect(gm.locator("#link-banner.shown")).to_contain_text("Back, 1 change caught up", timeout=20000)
    expect(copy).not_to_have_class(re.compile(r"\bwaiting\b"))
    assert gm.evaluate("window.tacmap.waiting()") == []
    shot(gm, "gm-phone-offline-form-copy-back")

    assert len(posts) == 2 and posts[0] and posts[1] == posts[0], "sent again with the same id"
    assert re.fullmatch(r"[a-z0-9]{12}\.[a-z0-9]{6}\.\d+", posts[0])
    after = state(server, game)
    assert after["seq"] == seq0 + 1, "not done twice"
    assert len(after["tokens"]) == 3
    ids = sorted(t["id"] for t in after["tokens"])
    # every screen agrees: three tokens on the GM's phone, the table screen and the player's phone
    for page in (gm, screen, phone):
        expect(page.locator("#map g.token")).to_have_count(3)
        assert sorted(page.locator("#map g.token").evaluate_all("els => els.map(e => e.id.slice(6))")) == ids
    expect(gm.locator("#token-list .token-row")).to_have_count(3)


@pytest.mark.console_errors(*OFFLINE, r"^htmx:(sendError|afterRequest), \[object HTMLFormElement\]",
                            why="the page loses the network (set_offline) as a form is sent: htmx logs the send it lost")
def test_form_commands_made_offline_go_out_in_order_and_a_refused_one_springs_back(server, new_page, shot):
    game, mira, hero, goblin = table(server)
    _gm, screen, phone = open_pages(server, game, mira, new_page)
    gm = gm_phone(new_page)
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_attached()
    seq0 = state(server, game)["seq"]

    gm.context.set_offline(True)
    expect(gm.locator("#link-banner.shown")).to_contain_text("Reconnecting")
    # copy the Goblin, remove it, copy it again: in this order the last one has no Goblin left to copy
    row = gm.locator(f"#row-{goblin}")
    row.locator("button", has_text="copy").click()
    row.locator('button[aria-label="Remove Goblin"]').click()
    row.locator("button", has_text="copy").click()
    expect(gm.locator("#link-banner")).to_contain_text("3 changes wait")
    assert gm.evaluate("window.tacmap.waiting()") == ["duplicate_token", "remove_token", "duplicate_token"]
    gm.wait_for_timeout(3000)
    assert state(server, game)["seq"] == seq0, "nothing reached the server while the link was down"
    shot(gm, "gm-phone-offline-three-forms-waiting")

    gm.context.set_offline(False)
    expect(gm.locator("#flash.shown")).to_contain_text("Refused after reconnecting", timeout=20000)
    refusal = gm.locator("#flash").inner_text()
    expect(gm.locator("#link-banner.shown")).to_contain_text("Back, 2 changes caught up", timeout=20000)
    shot(gm, "gm-phone-offline-forms-back-refused")
    after = state(server, game)
    assert after["seq"] == seq0 + 2, refusal
    assert goblin not in [t["id"] for t in after["tokens"]]  # removed
    assert len(after["tokens"]) == 2  # the Hero and the one copy made before the removal
    copy_id = next(t["id"] for t in after["tokens"] if t["id"] not in (hero, goblin))
    for page in (gm, screen, phone):
        expect(page.locator("#map g.token")).to_have_count(2)
        expect(page.locator(f"#token-{copy_id}")).to_have_count(1)
        expect(page.locator(f"#token-{goblin}")).to_have_count(0)
