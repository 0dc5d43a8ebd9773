"""The GM's forecast over the JSON API (#68): ``POST /api/games/<id>/forecast`` -> 202 and an id, its figures fill in
at ``GET .../forecast/<id>`` as the runs finish, the same seed gives the same figures, ``DELETE`` stops it, a second
replaces the first; a player's, the table screen's and a stranger's key get 403 and nothing else, nothing of it
reaches a phone or the table screen over Socket.IO, and the game does not change."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import bearer, game_with, state

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)

SHEETS = {"Ann": {}, "Bob": {}, "Orc": {}, "Imp": {}}
WHERE = [("Ann", (1, 2), True), ("Bob", (1, 5), True), ("Orc", (8, 3), False), ("Imp", (8, 6), False)]


def _fight(client):
    from rules import get

    sheet = get("savage_worlds").default_sheet()
    return game_with(client, "savage_worlds", {"width": 10, "height": 8}, WHERE,
                     sheets={name: {**sheet, "name": name} for name in SHEETS})


def _url(g, fid: str | None = None) -> str:
    return f"/api/games/{g['id']}/forecast" + (f"/{fid}" if fid else "")


def _until_done(client, g, fid: str, seconds: float = 60) -> dict:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = client.get(_url(g, fid), headers=bearer(g["gm_token"]))
        assert got.status_code == 200, got.get_data(as_text=True)
        if got.json["done"] or got.json.get("error"):
            return got.json
        time.sleep(0.05)
    raise AssertionError("the forecast did not finish")


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
def test_the_gm_forecasts_and_the_figures_fill_in_the_same_seed_giving_the_same_figures(app, client):
    g, _, ids = _fight(client)
    before = state(client, g)["seq"]
    made = client.post(_url(g), json={"runs": 6, "seed": 9}, headers=bearer(g["gm_token"]))
    assert made.status_code == 202 and set(made.json) == {"id"}, made.get_data(as_text=True)
    figures = _until_done(client, g, made.json["id"])
    assert figures["runs_done"] == 6 and figures["seed"] == 9 and "error" not in figures, figures
    assert 0.0 <= figures["party_wins"] <= 1.0 and figures["interval"][0] <= figures["party_wins"] <= figures["interval"][1]
    assert set(figures["down"]) <= set(ids.values()) and figures["rounds"]["median"] >= 1
    again = client.post(_url(g), json={"runs": 6, "seed": 9}, headers=bearer(g["gm_token"]))
    second = _until_done(client, g, again.json["id"])
    assert {k: v for k, v in second.items() if k != "id"} == {k: v for k, v in figures.items() if k != "id"}
    assert state(client, g)["seq"] == before  # nothing in the game changed


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
def test_stop_and_a_second_forecast_replacing_the_first(app, client):
    g, _, _ = _fight(client)
    gm = bearer(g["gm_token"])
    first = client.post(_url(g), json={"runs": 5000, "seed": 1}, headers=gm).json["id"]
    end = time.monotonic() + 30
    while client.get(_url(g, first), headers=gm).json["runs_done"] < 1:  # a first estimate comes soon
        assert time.monotonic() < end, "no run finished"
        time.sleep(0.05)
    stopped = client.delete(_url(g, first), headers=gm)
    assert stopped.status_code == 200 and stopped.json["stopped"] and not stopped.json["done"]
    time.sleep(1.0)
    kept = client.get(_url(g, first), headers=gm).json
    assert kept["runs_done"] < 5000 and not kept["done"]
    time.sleep(0.5)
    assert client.get(_url(g, first), headers=gm).json["runs_done"] == kept["runs_done"]  # it plays no more
    second = client.post(_url(g), json={"runs": 2000, "seed": 2}, headers=gm).json["id"]
    third = client.post(_url(g), json={"runs": 2, "seed": 3}, headers=gm).json["id"]
    assert client.get(_url(g, second), headers=gm).status_code == 404  # replaced
    assert _until_done(client, g, third)["runs_done"] == 2


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
def test_only_the_gm_may_forecast_and_nobody_else_hears_of_it(app, client):
    socketio = app.extensions["tacmap_socketio"]
    g, mira, _ = _fight(client)
    player = socketio.test_client(app, auth={"game": g["id"], "token": mira["player_token"]})
    screen = socketio.test_client(app, auth={"game": g["id"], "token": g["screen_token"]})
    for live in (player, screen):
        live.get_received()
    made = client.post(_url(g), json={"runs": 3, "seed": 4}, headers=bearer(g["gm_token"]))
    fid = made.json["id"]
    for key in (mira["player_token"], g["screen_token"], "not-a-key-of-this-game"):
        for answer in (client.post(_url(g), json={"runs": 3}, headers=bearer(key)),
                       client.get(_url(g, fid), headers=bearer(key)),
                       client.delete(_url(g, fid), headers=bearer(key))):
            assert answer.status_code == 403, (key, answer.status_code)
            assert fid not in answer.get_data(as_text=True) and "party_wins" not in answer.get_data(as_text=True)
    _until_done(client, g, fid)
    heard = json.dumps([live.get_received() for live in (player, screen)])
    assert "forecast" not in heard and fid not in heard and "party_wins" not in heard


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
@pytest.mark.parametrize("body, says", [
    ({"runs": 0}, "runs: a whole number from 1 to 5000"), ({"runs": 5001}, "runs"), ({"runs": "9"}, "runs"),
    ({"from": "middle"}, "from: start or now"), ({"players": "reckless"}, "players: bold or careful"),
    ({"token_ids": "all"}, "token_ids"), ({"tactics": {"x": "berserk"}}, "tactics"), ({"colour": 1}, "unknown field"),
    ({"from": "now"}, "no fight on"),
])
def test_a_bad_forecast_request_is_refused_with_the_reason(app, client, body, says):
    g, _, _ = _fight(client)
    answer = client.post(_url(g), json=body, headers=bearer(g["gm_token"]))
    assert answer.status_code in (400, 422) and says in answer.get_data(as_text=True), answer.get_data(as_text=True)


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
def test_the_most_dangerous_foe_is_the_one_whose_removal_helps_the_players_most(app, client):
    """Ann and Bob (Extras: one Wound and they are out) against a brute and a foe with no weapon: without the brute
    the heroes cannot lose, without the unarmed one they still lose some fights; the brute is the most dangerous."""
    from rules import get

    sheet = get("savage_worlds").default_sheet()
    g, _, ids = game_with(client, "savage_worlds", {"width": 10, "height": 8},
                          [("Ann", (1, 2), True), ("Bob", (1, 5), True), ("Brute", (8, 3), False), ("Imp", (8, 6), False)],
                          sheets={"Ann": {**sheet, "wild_card": False}, "Bob": {**sheet, "wild_card": False},
                                  "Brute": {**sheet, "name": "Brute"},
                                  "Imp": {**sheet, "name": "Imp", "weapons": {}}})
    made = client.post(_url(g), json={"runs": 12, "seed": 2, "most_dangerous": True}, headers=bearer(g["gm_token"]))
    figures = _until_done(client, g, made.json["id"], seconds=180)
    without = figures["without"]
    assert set(without) == {ids["Brute"], ids["Imp"]}
    assert without[ids["Brute"]]["party_wins"] == 1.0 and without[ids["Brute"]]["runs_done"] == 12
    assert without[ids["Imp"]]["party_wins"] < 1.0, figures  # the brute alone still beats the Extras now and then
    assert figures["most_dangerous"] == ids["Brute"], figures


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
@pytest.mark.parametrize("lang, before, after", [("en", "about ", " left"), ("de", "noch etwa ", ""),
                                                 ("fr", "encore environ ", ""), ("es", "faltan? aproximadamente ", "")])
def test_the_card_says_how_long_the_forecast_will_take_yet_in_the_gms_language(app, client, lang, before, after):
    """While a forecast runs, its card says the time it will take yet at its pace so far (seconds, or minutes past a
    minute), in the GM's language; the figures of a stopped one say "stopped" and no time."""
    import re

    g, _, ids = _fight(client)
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)
    language = {"Accept-Language": lang}
    card = client.post(f"/games/{g['id']}/forecast", data={"from": "start", "players": "bold", "runs": "5000",
                                                           "listed": list(ids.values()), "fights": list(ids.values())},
                       headers=language).get_data(as_text=True)
    fid = re.search(r"/forecast/([0-9a-f]+)/stop", card).group(1)
    end = time.monotonic() + 30
    while True:
        page = re.sub(r"\s+", " ", client.get(f"/games/{g['id']}/forecast/{fid}", headers=language).get_data(as_text=True))
        left = re.search(r'<span class="forecast-left">(.*?)</span>', page)
        if left:
            break
        assert time.monotonic() < end, "no run finished, or the card said no time"
        time.sleep(0.05)
    words = left.group(1)
    assert re.fullmatch(rf"{before}\d+ \w+{after}", words), words
    amount = int(re.search(r"\d+", words).group())
    assert amount >= 1 and (amount % 5 == 0 or not re.search(r"sec|Sek|seg", words)), words  # seconds come by fives
    client.delete(_url(g, fid), headers=bearer(g["gm_token"]))
    stopped = client.get(f"/games/{g['id']}/forecast/{fid}", headers=language).get_data(as_text=True)
    assert 'class="forecast-left"' not in stopped


@pytest.mark.app_config(DEMO=False, ASYNC_MODE="threading")
def test_the_gm_pages_form_leaves_out_the_unticked_and_brings_a_foe_twice(app, client):
    """The card's form (#68): every fighter listed with "in the fight"; a hero and a foe unticked are left out of
    the forecast, a foe ticked "twice" comes twice, a changed tactic is said; a player's browser is refused."""
    import re

    g, mira, ids = _fight(client)
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)
    form = client.get(f"/games/{g['id']}/forecast-form").get_data(as_text=True)
    assert re.findall(r'<th scope="row">(\w+)<input type="hidden" name="listed"', form) == ["Ann", "Bob", "Orc", "Imp"]
    answer = client.post(f"/games/{g['id']}/forecast", data={
        "from": "start", "players": "careful", "runs": "2", "listed": list(ids.values()),
        "fights": [ids["Ann"], ids["Orc"]], "twice": [ids["Orc"]], f"tactic-{ids['Orc']}": "cowardly"})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    page = re.sub(r"\s+", " ", answer.get_data(as_text=True))
    assert "without Bob" in page and "without Imp" in page and "Orc twice" in page and "Orc cowardly" in page
    assert "players careful" in page
    fid = re.search(r"/forecast/([0-9a-f]+)/stop", page).group(1)
    figures = _until_done(client, g, fid)
    assert set(figures["down"]) <= {ids["Ann"], ids["Orc"], ids["Orc"] + "+1"}, figures
    phone = app.test_client()
    phone.get(f"/games/{g['id']}/play?key={mira['player_token']}")
    assert phone.get(f"/games/{g['id']}/forecast-form").status_code == 403
    assert phone.post(f"/games/{g['id']}/forecast", data={"runs": "2"}).status_code == 403
