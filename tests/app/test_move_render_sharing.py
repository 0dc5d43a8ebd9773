"""Issue #32, the per-move path: what several audiences of one update see alike is worked out once per
update, not once per audience (the prompts a move sends every player, the newest log lines, the digests of
what was sent), and each audience still gets exactly its own view: a Savage Worlds Benny reroll offer and a
Soak offer reach the player whose token it is (and the GM), never another player or the table screen."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import connect, join, new_game
from webapp.game.views import audience
from webapp.live.server import throttle

from test_broadcast_views import compare_with_renders_alone, renders  # noqa: F401 (a fixture)

S = rules.get("savage_worlds")


pytestmark = pytest.mark.app_config(DICE_SEED="32")


@pytest.fixture
def app(app):
    """The shared app (tests/conftest.py), its seats' limit out of the way of so many links."""
    app.extensions["tacmap"].seats = throttle.Seats(rate=1000.0, burst=1000)
    return app


@pytest.fixture
def table(app):
    """A Savage Worlds game: Mira's Ann (a Wild Card with Bennies, poor at Fighting) beside the GM's Bob (a Wild
    Card), four more seated players who own nothing; everyone connected (GM, table screen, five players)."""
    c = app.test_client()
    g = new_game(c, "savage_worlds", {"width": 12, "height": 8}, name="Sharing")
    gm_auth = {"Authorization": f"Bearer {g['gm_token']}"}
    players = [join(c, g, name)
               for name in ("Mira", "Olaf", "Pia", "Quinn", "Rolf")]
    mira = players[0]
    ids = {}
    for name, (x, y), owner in (("Ann", (2, 2), mira["player_id"]), ("Bob", (3, 2), None), ("Cat", (8, 6), None)):
        body = {"name": name, "x": x, "y": y, "kind": "pc" if owner else "npc"} | ({"owner": owner} if owner else {})
        ids[name] = c.post(f"/api/games/{g['id']}/tokens", json=body, headers=gm_auth).json["id"]
    gm_live = connect(app, g["id"], g["gm_token"])
    ann = S.default_sheet()
    ann["skills"] = {**ann["skills"], "fighting": "d4"}
    ann["bennies"] = 3
    bob = S.default_sheet()
    bob["bennies"] = 2
    for name, sheet, owner in (("Ann", ann, mira["player_id"]), ("Bob", bob, None)):
        ack = gm_live.emit("command", {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet,
                                       **({"owner": owner} if owner else {})}, callback=True)
        assert ack["ok"], ack
    screen = connect(app, g["id"], g["screen_token"])
    seats = [connect(app, g["id"], p["player_token"]) for p in players]
    for client in (gm_live, screen, *seats):
        assert client.is_connected()
        client.get_received()
    return {"game": g, "ids": ids, "gm": gm_live, "screen": screen, "seats": seats, "players": players,
            "hub": app.extensions["tacmap"]}


def updates(client) -> str:
    return "".join(m["args"][0]["html"] for m in client.get_received() if m["name"] == "update")


def command(client, payload) -> dict:
    ack = client.emit("command", payload, callback=True)
    assert ack["ok"], ack
    return ack



def test_a_move_draws_the_prompts_and_the_log_once_for_every_audience_that_sees_them_alike(table, renders):
    cat = table["ids"]["Cat"]  # nobody's token far from the others: a plain move, nothing offered to anyone
    command(table["gm"], {"type": "move_token", "token_id": cat, "x": 8, "y": 5})
    # the reroll prompt (empty for all: no offer) once, not once per GM and player (six)
    assert renders.count("_reroll_prompt.html") == 1, renders
    assert renders.count("log") == 2, renders  # the GM's (with Undo) and the players' alike
    for seat in table["seats"]:
        assert f'id="token-{cat}"' in updates(seat)


def test_a_move_in_bright_light_with_no_token_followed_leaves_the_lighting_and_the_screen_view_alone(table, renders):
    """In bright light the lighting layer is nothing for the players and the table, the map's lamps for the GM: a
    move changes none of it; the table screen's view changes with a move only when it follows a token."""
    gm, cat = table["gm"], table["ids"]["Cat"]
    command(gm, {"type": "move_token", "token_id": cat, "x": 8, "y": 5})
    assert "_lighting.html" not in renders and "_screen_view.html" not in renders, renders
    assert 'id="layer-lighting"' not in updates(gm) and 'id="screen-view-state"' not in updates(table["screen"])
    # the screen follows a token: the view goes with each move (a followed token may go out of sight)
    command(gm, {"type": "set_screen_view", "follow": cat})
    for client in (gm, table["screen"]):
        client.get_received()
    renders.clear()
    command(gm, {"type": "move_token", "token_id": cat, "x": 8, "y": 6})
    # the GM's and the screen's alike: drawn once, or not at all when the same view was drawn for an update before
    # (render._KEPT_PARTS)
    assert renders.count("_screen_view.html") <= 1, renders
    assert 'id="screen-view-state"' in updates(gm)  # (the screen hears of it only when its view changed)
    # in the dark, what a move lights changes: every audience's lighting layer is drawn (the GM's, the screen's
    # and the players' alike: three)
    command(gm, {"type": "set_lighting", "ambient": "dark"})
    for client in (gm, table["screen"], *table["seats"]):
        client.get_received()
    renders.clear()
    command(gm, {"type": "move_token", "token_id": cat, "x": 8, "y": 5})
    assert renders.count("_lighting.html") == 3, renders
    assert 'id="layer-lighting"' in updates(gm)


def test_the_newest_log_lines_are_read_once_per_update_for_the_players_who_read_the_same(table, monkeypatch):
    reads: list[str] = []
    newest = audience.newest_log

    def counted(game, actor, may_read=None):
        if game.id == table["game"]["id"]:  # the patch is the process's: an earlier test's app's task may still draw
            reads.append(actor.audience)
        return newest(game, actor) if may_read is None else newest(game, actor, may_read)

    monkeypatch.setattr(audience, "newest_log", counted)
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 8, "y": 5})
    # the GM reads every line, the five players those for all (the table screen shows no log)
    assert len(reads) == 2 and reads.count("gm") == 1, reads


def test_each_audience_gets_what_a_render_for_it_alone_gives_through_offers_made_and_taken(table, monkeypatch):
    """A reroll offer and a Soak offer are one player's (and the GM's): shared renders must never hand them to
    another audience. Each audience's html from the shared renders equals its own render at the same moment."""
    compared = compare_with_renders_alone(monkeypatch)
    ids, gm, mira = table["ids"], table["gm"], table["seats"][0]
    others = [table["screen"], *table["seats"][1:]]
    offered = False
    for _ in range(30):  # Ann attacks Bob until she misses (seeded dice): the reroll is offered to Mira
        for client in (gm, *table["seats"], table["screen"]):
            client.get_received()
        command(mira, {"type": "attack", "attacker": ids["Ann"], "target": ids["Bob"], "weapon": "Long sword"})
        game = table["hub"].game(table["game"]["id"])
        if game.pending_reroll:
            offered = True
            break
    assert offered, "Ann never missed"
    assert 'data-reroll="yes"' in updates(mira)
    assert 'data-reroll="yes"' in updates(gm)  # the GM may answer for anyone
    for client in others:
        assert 'data-reroll="yes"' not in updates(client)
    command(mira, {"type": "benny_reroll", "accept": False})
    soaked = False
    for _ in range(30):  # Bob hits Ann until she takes a Wound she may soak: Mira's to answer
        for client in (gm, *table["seats"], table["screen"]):
            client.get_received()
        command(gm, {"type": "attack", "attacker": ids["Bob"], "target": ids["Ann"], "weapon": "Long sword"})
        game = table["hub"].game(table["game"]["id"])
        if game.pending_reroll:
            command(gm, {"type": "benny_reroll", "accept": False})
        if game.pending_soak:
            soaked = True
            break
    assert soaked, "Bob never wounded Ann"
    assert 'data-soak="yes"' in updates(mira)
    for client in others:
        assert 'data-soak="yes"' not in updates(client)
    command(mira, {"type": "soak", "token_id": ids["Ann"], "accept": False})
    command(gm, {"type": "move_token", "token_id": ids["Cat"], "x": 8, "y": 5})
    assert compared.count("gm") >= 4 and compared.count(f"player:{table['players'][1]['player_id']}") >= 4


def test_with_fog_what_each_audience_sees_is_worked_out_once_per_move(table, monkeypatch):
    """The tokens a player may see (fog of war) are what the fragments show and what keeps names out of the log
    lines it reads: one reckoning per audience and move serves both."""
    from webapp.game.bridge import fog

    asked: list[str] = []
    visible = fog.visible_tokens

    def counted(game, actor):
        asked.append(actor.audience)
        return visible(game, actor)

    monkeypatch.setattr(fog, "visible_tokens", counted)
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 7, "y": 6})
    assert asked == []  # without fog a move's update needs no one's list of tokens (its one token, its log lines)
    command(table["gm"], {"type": "set_fog", "enabled": True})
    asked.clear()
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 8, "y": 5})
    players = [f"player:{p['player_id']}" for p in table["players"]]
    assert sorted(a for a in asked if a != "gm") == sorted(["screen", *players]), asked  # once each
    assert asked.count("gm") <= 1, asked  # (the GM sees every token)


def test_the_gms_update_is_sent_after_every_other_screens(table, monkeypatch):
    """The GM made the move and sees it already: the table screen's and the players' messages go out first."""
    hub = table["hub"]
    order: list = []
    emit = hub.socketio.emit

    def recorded(event, data=None, *args, **kwargs):
        if event == "update":
            to = kwargs.get("to")
            order.extend([to] if isinstance(to, str) else to)
        return emit(event, data, *args, **kwargs)

    monkeypatch.setattr(hub.socketio, "emit", recorded)
    for x in (7, 8, 7):
        order.clear()
        command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": x, "y": 5})
        audiences = [r.partition("|")[0] for r in order]  # each audience's room of one language (#37)
        assert audiences and audiences[-1].endswith(":gm") and sum(r.endswith(":gm") for r in audiences) == 1, order
        assert len(order) > 1  # the others heard of it too (before the GM)
