"""The GM sees the table's phones (#61): each player seat's device live, asleep, link down since when, behind or
gone, on the GM's players card and, when it is their turn, on the fight card. A player's page reports only
whether it is shown and the last update it applied (the ``device`` event); a bad report, or one from the GM or
the table screen, or one too many, is refused and changes nothing; no player and no table screen ever hears of
any of it. Real Socket.IO test clients against the app; the devices' clock is moved on where a state needs time
to pass (a link down for two minutes is gone)."""

from __future__ import annotations

import re

import pytest

from tests.helpers import command, connect, join, new_game
from webapp.live import devices as devices_module

pytestmark = pytest.mark.app_config(DEMO=False)

#: what only the GM may see of the devices, as it would show in any html or message
DEVICE_WORDS = re.compile(r"device-state|turn-device|device-(live|behind|asleep|down|gone)|link down since|"
                          r"phone asleep|no device connected", re.I)


@pytest.fixture
def table(app, hub):
    """A game with Mira and Theo joined, each with a phone; the GM's page and the table screen connected."""
    client = app.test_client()
    g = new_game(client)
    mira, theo = join(client, g, "Mira"), join(client, g, "Theo")
    gm = connect(app, g["id"], g["gm_token"])
    screen = connect(app, g["id"], g["screen_token"])
    phones = {"Mira": connect(app, g["id"], mira["player_token"]), "Theo": connect(app, g["id"], theo["player_token"])}
    seq = hub.game(g["id"]).seq
    for phone in phones.values():
        assert phone.emit("device", {"visible": True, "seq": seq}, callback=True) == {"ok": True}
    hub.devices.tick()
    for c in (gm, screen, *phones.values()):
        c.get_received()
    return {"client": client, "game": g, "ids": {"Mira": mira["player_id"], "Theo": theo["player_id"]},
            "keys": {"Mira": mira["player_token"], "Theo": theo["player_token"]}, "gm": gm, "screen": screen,
            "phones": phones}


def updates(c) -> list[str]:
    return [m["args"][0]["html"] for m in c.get_received() if m["name"] == "update"]


def seat_words(html: str, player_id: str) -> str:
    """The words of a player's row on the GM's players card in ``html`` (an update's or the page's)."""
    row = re.search(rf'<li class="player (?:online|offline)" id="player-{player_id}".*?</small>', html, re.S)
    assert row, html[:2000]
    return " ".join(re.sub(r"<[^>]+>", " ", row.group(0)).split())


def shown_to_gm(table, hub, name: str) -> str:
    """Mira's or Theo's state as the GM's page shows it after the next look (``tick``): the newest card pushed."""
    hub.devices.tick()
    cards = [h for h in updates(table["gm"]) if 'id="players"' in h]
    assert cards, "the GM's players card was not drawn again"
    return seat_words(cards[-1], table["ids"][name])


def later(hub, seconds: float) -> None:
    """The devices' clock moved on by ``seconds``."""
    now = hub.devices.now
    hub.devices.now = lambda: now() + seconds


def test_each_state_reaches_the_gm_and_nobody_else(app, hub, table):
    g = table["game"]
    # Mira's phone goes to sleep (its page hidden)
    assert table["phones"]["Mira"].emit("device", {"visible": False, "seq": hub.game(g["id"]).seq},
                                        callback=True) == {"ok": True}
    words = shown_to_gm(table, hub, "Mira")
    assert "asleep" in words and "☾" in words, words
    # ...and wakes: live again
    assert table["phones"]["Mira"].emit("device", {"visible": True}, callback=True) == {"ok": True}
    words = shown_to_gm(table, hub, "Mira")
    assert "live" in words and "●" in words, words
    # Theo's link drops: down since the time it dropped (HH:MM, the server's clock)
    table["phones"]["Theo"].disconnect()
    words = seat_words(updates(table["gm"])[-1], table["ids"]["Theo"])  # drawn at once, as "not connected" was
    assert re.search(r"⚠ link down since \d\d:\d\d", words), words
    hub.devices.tick()
    assert not updates(table["gm"]), "nothing changed: nothing drawn again"
    # two minutes on, still no connection: gone
    later(hub, devices_module.GONE_AFTER + 1)
    words = shown_to_gm(table, hub, "Theo")
    assert "gone" in words and "○" in words, words
    # Theo back on a new connection: live
    theo = connect(app, g["id"], table["keys"]["Theo"])
    assert "live" in seat_words(updates(table["gm"])[-1], table["ids"]["Theo"])
    theo.disconnect()
    # no player and no table screen heard any of it (only the GM's room gets the card)
    for c in (table["screen"], table["phones"]["Mira"]):
        for m in c.get_received():
            assert not DEVICE_WORDS.search(str(m["args"])), m


def test_a_page_that_does_not_apply_what_it_was_sent_is_behind(app, hub, table):
    g = table["game"]
    seq = hub.game(g["id"]).seq
    # a token every player sees: an update goes to each phone
    assert command(table["client"], g, {"type": "add_token", "name": "Goblin", "x": 3, "y": 3}).status_code == 200
    assert updates(table["phones"]["Mira"]) and updates(table["phones"]["Theo"])
    # Theo's page applies it and says so; Mira's says nothing more (its link died without a word)
    assert table["phones"]["Theo"].emit("device", {"visible": True, "seq": hub.game(g["id"]).seq},
                                        callback=True) == {"ok": True}
    hub.devices.tick()
    table["gm"].get_received()
    later(hub, devices_module.BEHIND_AFTER + 0.5)
    assert "behind" in shown_to_gm(table, hub, "Mira")
    hub.devices.tick()
    assert not updates(table["gm"]), "Theo applied it: still live, nothing drawn again"
    assert hub.devices.summary(g["id"])[table["ids"]["Theo"]]["state"] == "live"
    # Mira's page catches up: live again
    assert table["phones"]["Mira"].emit("device", {"visible": True, "seq": hub.game(g["id"]).seq},
                                        callback=True) == {"ok": True}
    assert "live" in shown_to_gm(table, hub, "Mira")
    assert seq < hub.game(g["id"]).seq


BAD = [
    None, [], "hidden", 5, True, {}, {"seq": 3}, {"visible": "false"}, {"visible": 0}, {"visible": None},
    {"visible": False, "seq": -1}, {"visible": False, "seq": 2**60}, {"visible": False, "seq": True},
    {"visible": False, "seq": 1.5}, {"visible": False, "seq": "7"}, {"visible": False, "where": "kitchen"},
    {"visible": False, "seq": 1, "battery": 12}, {"visible": {"visible": False}},
]


def test_bad_reports_are_refused_and_change_nothing(app, hub, table):
    g, mira = table["game"], table["phones"]["Mira"]
    before = hub.devices.summary(g["id"])
    for payload in BAD:
        answer = mira.emit("device", payload, callback=True)
        assert answer["ok"] is False and answer["error"], (payload, answer)
    # two arguments, none, and a payload nested deep
    assert mira.emit("device", {"visible": False}, {"visible": False}, callback=True)["ok"] is False
    assert mira.emit("device", callback=True)["ok"] is False
    deep: dict = {"visible": False}
    for _ in range(200):
        deep = {"visible": deep}
    assert mira.emit("device", deep, callback=True)["ok"] is False
    assert hub.devices.summary(g["id"]) == before
    hub.devices.tick()
    assert not updates(table["gm"]), "nothing changed: nothing drawn again"
    assert all(d["state"] == "live" for d in before.values()) and len(before) == 2
    # the connection still works: a good report goes through
    assert mira.emit("device", {"visible": False}, callback=True) == {"ok": True}


def test_the_gm_and_the_table_screen_do_not_report(app, hub, table):
    g = table["game"]
    before = hub.devices.summary(g["id"])
    for c in (table["gm"], table["screen"]):
        answer = c.emit("device", {"visible": False, "seq": 1}, callback=True)
        assert answer["ok"] is False and "only a player's device" in answer["error"], answer
    assert hub.devices.summary(g["id"]) == before
    hub.devices.tick()
    assert not updates(table["gm"])


def test_reports_are_limited_per_connection(app, hub, table):
    g = table["game"]
    seq = hub.game(g["id"]).seq
    burst, _window = devices_module.REPORTS
    answers = [table["phones"]["Theo"].emit("device", {"visible": i % 2 == 0, "seq": seq}, callback=True)
               for i in range(burst + 5)]
    took = [a for a in answers if a["ok"]]
    # the fixture's first report counts too: the connection's burst, then refusals that change nothing
    assert len(took) == burst - 1, answers
    assert all("a few times a second" in a["error"] for a in answers if not a["ok"])
    theo = hub.devices.summary(g["id"])[table["ids"]["Theo"]]["state"]
    assert theo == ("asleep" if (burst - 2) % 2 else "live")  # the last report taken decided, not a refused one
    # another connection's reports are its own
    assert table["phones"]["Mira"].emit("device", {"visible": False, "seq": seq}, callback=True) == {"ok": True}


def test_the_fight_card_flags_a_turn_whose_phone_sleeps(app, hub, table):
    g, client = table["game"], table["client"]
    for name, x, owner in (("Aria", 2, table["ids"]["Mira"]), ("Goblin", 6, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers={"Authorization": f"Bearer {g['gm_token']}"})
        assert r.status_code == 201, r.get_data(as_text=True)
    ids = {t.name: t.id for t in hub.game(g["id"]).tokens.values()}
    # Mira's phone sleeps; then the fight starts, and Aria's turn comes
    assert table["phones"]["Mira"].emit("device", {"visible": False}, callback=True) == {"ok": True}
    hub.devices.tick()
    assert command(client, g, {"type": "start_combat", "token_ids": [ids["Aria"], ids["Goblin"]]}).status_code == 200
    if hub.game(g["id"]).combat["current"] != ids["Aria"]:  # the Goblin first: then Aria's turn comes next
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    assert hub.game(g["id"]).combat["current"] == ids["Aria"]
    gm_html = "".join(updates(table["gm"]))
    flag = re.findall(r'<p id="turn-device"([^>]*)>(.*?)</p>', gm_html, re.S)[-1]  # the fight card now
    assert "hidden" not in flag[0], gm_html[-3000:]
    assert "☾ Mira's turn — phone asleep" in re.sub(r"<[^>]+>", "", flag[1])
    # Mira's phone wakes: the flag goes, drawn on its own (not the whole fight card)
    assert table["phones"]["Mira"].emit("device", {"visible": True}, callback=True) == {"ok": True}
    hub.devices.tick()
    pushed = updates(table["gm"])
    assert pushed and all('id="combat"' not in h for h in pushed)
    assert re.search(r'<p id="turn-device"[^>]*hidden', pushed[-1]), pushed[-1]
    # the players' and the table screen's fight cards never carry it
    for c in (table["screen"], *table["phones"].values()):
        for m in c.get_received():
            assert not DEVICE_WORDS.search(str(m["args"])), m
    # her link drops: said at once with the card (the disconnect draws both); back on a new connection, the flag goes
    table["phones"]["Mira"].disconnect()
    flag = re.findall(r'<p id="turn-device"([^>]*)>(.*?)</p>', "".join(updates(table["gm"])), re.S)[-1]
    assert re.search(r"⚠ Mira's turn — link down since \d\d:\d\d", re.sub(r"<[^>]+>", "", flag[1])), flag
    back = connect(app, g["id"], table["keys"]["Mira"])
    assert re.search(r'<p id="turn-device"[^>]*hidden', updates(table["gm"])[-1])
    assert not [m for m in back.get_received() if DEVICE_WORDS.search(str(m["args"]))]
    back.disconnect()
