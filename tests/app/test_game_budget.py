"""A game's log and memory are bounded whoever its GM is (#57): every game's events and bytes a minute, the GM's
counted too (a GM on the server's own machine gets more, not unbounded), a total per game, and a game nobody
uses leaves memory and comes back from its log the same."""

from __future__ import annotations

import pytest

from tests.helpers import GAMES, bearer, command, connect, join, new_game, state
from webapp.live import allowance

pytestmark = pytest.mark.app_config(DEMO=False)
ROLL = {"type": "roll", "expr": "100d1000"}  # the largest roll there is: 100 dice (rules/dice.py MAX_DICE)


def log_bytes(hub, game_id) -> int:
    return hub.store._db.execute("SELECT COALESCE(SUM(LENGTH(data) + LENGTH(type) + 32), 0) FROM events "
                                 "WHERE game_id = ?", (game_id,)).fetchone()[0]


def roll_until_refused(client, g, most: int):
    """Roll as the GM until refused (the refusal's answer), at most ``most`` times; the rolls done too."""
    for done in range(most):
        r = command(client, g, ROLL)
        if r.status_code != 200:
            return r, done
    return None, most


@pytest.fixture
def small_budget(hub, monkeypatch):
    """A game's budget a tenth of the real one (the test stays short), a clock that stands still."""
    now = [1000.0]
    hub.allowance = allowance.LogAllowance(clock=lambda: now[0])
    monkeypatch.setattr(allowance, "GAME_BYTES", 200 * 1024, raising=False)
    monkeypatch.setattr(allowance, "GAME_EVENTS", 60, raising=False)
    monkeypatch.setattr(allowance, "LOCAL_FACTOR", 3, raising=False)
    return now


def test_a_gm_on_another_device_is_refused_past_the_games_budget_and_the_log_stops_growing(app, hub, small_budget):
    host = app.test_client()  # the host makes the game on the server's own machine...
    g = new_game(host, name="Mine")
    gm = app.test_client()  # ...and runs it from a laptop on the Wi-Fi, as any GM of a game of their own could
    gm.environ_base["REMOTE_ADDR"] = "192.168.1.50"
    start = log_bytes(hub, g["id"])
    refused, done = roll_until_refused(gm, g, 200)
    assert refused is not None, "the GM's rolls were never refused"
    assert refused.status_code == 422 and "nothing was stored; try again in" in refused.json["error"], refused.json
    assert "players' and GM's devices" in refused.json["error"]
    grown = log_bytes(hub, g["id"]) - start
    assert grown <= allowance.GAME_BYTES and done <= allowance.GAME_EVENTS, (grown, done)
    assert command(gm, g, ROLL).status_code == 422  # still spent
    # a player on another device shares the devices' budget of that game
    seat = join(host, g, "Mira")
    player = app.test_client()
    player.environ_base["REMOTE_ADDR"] = "192.168.1.51"
    assert command(player, g, ROLL, seat["player_token"]).status_code == 422
    # the server's own machine has a budget of its own, larger, not unbounded
    refused, local_done = roll_until_refused(host, g, 1000)
    assert refused is not None and "server's own machine" in refused.json["error"], refused and refused.json
    assert done < local_done <= allowance.GAME_EVENTS * allowance.LOCAL_FACTOR
    # a minute later the devices roll again
    small_budget[0] += 60
    assert command(gm, g, ROLL).status_code == 200


def test_another_game_is_not_held_by_a_game_past_its_budget(app, hub, small_budget):
    host = app.test_client()
    spent, other = new_game(host, name="Spent"), new_game(host, name="Other")
    gm = app.test_client()
    gm.environ_base["REMOTE_ADDR"] = "192.168.1.50"
    assert roll_until_refused(gm, spent, 200)[0] is not None
    assert command(gm, other, ROLL).status_code == 200


def test_a_games_log_is_full_at_its_total_and_says_so(app, hub, client, monkeypatch):
    g = new_game(client, name="Long")
    seq = hub.game(g["id"]).seq
    monkeypatch.setattr(allowance, "GAME_TOTAL_EVENTS", seq + 3, raising=False)
    answers = [command(client, g, {"type": "roll", "expr": "1d6"}).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 422, 422], answers
    r = command(client, g, {"type": "roll", "expr": "1d6"})
    assert "this game's log is full" in r.json["error"]
    assert hub.store.last_seq(g["id"]) == seq + 3
    # and in bytes
    other = new_game(client, name="Wordy")
    monkeypatch.setattr(allowance, "GAME_TOTAL_BYTES", log_bytes(hub, other["id"]) + 10_000, raising=False)
    answers = [command(client, other, ROLL).status_code for _ in range(3)]
    assert answers == [200, 422, 422], answers


def test_an_idle_game_leaves_memory_and_comes_back_from_its_log_the_same(app, hub, client):
    g = new_game(client, name="Idle")
    seat = join(client, g, "Mira")
    for body in ({"type": "add_token", "name": "Orc", "x": 3, "y": 4}, ROLL):
        assert command(client, g, body).status_code in (200, 201)
    before = state(client, g)
    assert hub.games.evict_idle() == []  # just used: kept
    hub.games.idle_s = 0
    assert hub.games.evict_idle() == [g["id"]]
    assert g["id"] not in hub.games._games
    assert state(client, g) == before  # read again from the log
    assert g["id"] in hub.games._games
    r = command(client, g, {"type": "roll", "expr": "1d6"}, seat["player_token"])  # and played on
    assert r.status_code == 200, r.json


def test_a_game_with_a_connected_screen_never_leaves_memory(app, hub, client):
    g = new_game(client, name="Busy")
    quiet = new_game(client, name="Quiet")
    link = connect(app, g["id"], g["gm_token"])
    assert link.is_connected()
    hub.games.get(quiet["id"])
    hub.games.idle_s = 0
    assert hub.games.evict_idle() == [quiet["id"]]
    assert g["id"] in hub.games._games
    link.disconnect()
    assert hub.games.evict_idle() == [g["id"]]


def test_idle_games_are_swept_on_the_next_access(app, hub, client, monkeypatch):
    from webapp.live import games

    g = new_game(client, name="Gone")
    other = new_game(client, name="Here")
    hub.games.get(g["id"])
    hub.games.idle_s = 0
    monkeypatch.setattr(games, "SWEEP_EVERY_S", 0)
    client.get(f"{GAMES}/{other['id']}/state", headers=bearer(other["gm_token"]))
    assert g["id"] not in hub.games._games and other["id"] in hub.games._games


def test_the_log_cards_cache_keeps_no_line_its_game_let_go(app, hub, client):
    """The rendered log lines' cache (webapp/live/screens/logcard.py) held the last 4,096 entries alive, a 100-dice roll's
    40 kB of details each, whatever their game still kept: some 160 MB that stayed."""
    import gc

    from webapp.game.core.model import Game, LogEntry

    g = new_game(client, name="Dice tower")
    gm = connect(app, g["id"], g["gm_token"])
    for _ in range(Game.LOG_KEEP + 60):
        assert gm.emit("command", {"type": "roll", "expr": "100d999"}, callback=True)["ok"]
    gm.get_received()
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, LogEntry) and (o.detail or {}).get("roll", {}).get("expr")
             == "100d999"]
    assert len(alive) <= Game.LOG_KEEP, len(alive)


def test_a_command_larger_than_the_whole_budget_goes_when_the_budget_is_full(app, hub, small_budget, monkeypatch):
    monkeypatch.setattr(allowance, "GAME_BYTES", 4 * 1024, raising=False)  # smaller than one 100d1000 roll
    host = app.test_client()
    g = new_game(host, name="Big")
    gm = device(app)
    assert command(gm, g, ROLL).status_code == 200  # the budget was full: it goes, and is spent
    r = command(gm, g, ROLL)
    assert r.status_code == 422 and "try again in" in r.json["error"]
    small_budget[0] += 120  # full again
    assert command(gm, g, ROLL).status_code == 200


def device(app, address="192.168.1.50"):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c
