"""One update, many audiences: a fragment several audiences see alike is rendered once per update
(``render.view_key``), and each audience still gets exactly its own view: the owner's token is movable
and marked hers, a hidden token's move reaches the GM alone, a player who cannot see a square gets
nothing of it, and every audience's html is the html a render for it alone gives."""

from __future__ import annotations

import re

import pytest
from flask import template_rendered

from tests.helpers import connect, join, new_game
from webapp.game.bridge import fog
from webapp.live.screens import render, token_svg
from webapp.live.presence import actor_for_audience


# a wall across the whole 30 x 10 board at x = 15 with a closed door: the two halves do not see each other
ROOM = {"width": 30, "height": 10, "walls": [{"a": [15, 0], "b": [15, 4]}, {"a": [15, 5], "b": [15, 10]}],
        "doors": [{"a": [15, 4], "b": [15, 5], "closed": True}]}
N_PLAYERS = 8


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="views")


@pytest.fixture
def table(app):
    """A game with 8 seated players: Mira owns Aria (left half), Olaf owns Bruno (right half); an NPC on
    each side (Ogre left, Troll right) and a hidden Ghost; everyone connected (GM, screen, 8 players)."""
    c = app.test_client()
    g = new_game(c, "plain_grid", ROOM, name="Views")
    gm = {"Authorization": f"Bearer {g['gm_token']}"}
    players = [join(c, g, name)
               for name in ["Mira", "Olaf"] + [f"P{i}" for i in range(2, N_PLAYERS)]]
    mira, olaf = players[0], players[1]
    ids = {}
    for name, (x, y), owner, hidden in (("Aria", (2, 2), mira["player_id"], False),
                                        ("Bruno", (25, 2), olaf["player_id"], False),
                                        ("Ogre", (5, 6), None, False), ("Troll", (22, 6), None, False),
                                        ("Ghost", (8, 8), None, True)):
        body = {"name": name, "x": x, "y": y, "owner": owner, "hidden": hidden}
        if owner:
            body["kind"] = "pc"
        ids[name] = c.post(f"/api/games/{g['id']}/tokens", json=body, headers=gm).json["id"]
    gm_live = connect(app, g["id"], g["gm_token"])
    screen = connect(app, g["id"], g["screen_token"])
    seats = [connect(app, g["id"], p["player_token"]) for p in players]
    for client in (gm_live, screen, *seats):
        assert client.is_connected()
        client.get_received()

    def command(payload):
        ack = gm_live.emit("command", payload, callback=True)
        assert ack["ok"], ack
        return ack

    return {"game": g, "ids": ids, "gm": gm_live, "screen": screen, "seats": seats, "players": players,
            "command": command, "hub": app.extensions["tacmap"]}


def updates(client) -> list[str]:
    return [m["args"][0]["html"] for m in client.get_received() if m["name"] == "update"]


def token_g(html: str, token_id: str) -> str | None:
    """The opening tag of a token's <g> in an update, or None."""
    m = re.search(rf'<g id="token-{re.escape(token_id)}"[^>]*>', html)
    return m.group(0) if m else None


def classes(tag: str) -> set[str]:
    return set(re.search(r'class="([^"]*)"', tag).group(1).split())


def test_the_owner_gets_her_token_movable_and_marked_hers_the_others_do_not(table):
    aria = table["ids"]["Aria"]
    table["command"]({"type": "move_token", "token_id": aria, "x": 3, "y": 2})
    got = {"gm": updates(table["gm"]), "screen": updates(table["screen"])}
    got |= {f"seat{i}": updates(s) for i, s in enumerate(table["seats"])}
    tags = {who: token_g("".join(html), aria) for who, html in got.items()}
    assert all(tag is not None and 'data-x="3"' in tag for tag in tags.values()), tags
    assert {"movable", "mine"} <= classes(tags["seat0"])  # Mira owns Aria
    assert "movable" in classes(tags["gm"]) and "mine" not in classes(tags["gm"])
    for who in ("screen", *(f"seat{i}" for i in range(1, N_PLAYERS))):
        assert not {"movable", "mine"} & classes(tags[who]), (who, tags[who])


def test_a_hidden_tokens_move_reaches_the_gm_only(table):
    ghost = table["ids"]["Ghost"]
    table["command"]({"type": "move_token", "token_id": ghost, "x": 9, "y": 8})
    gm_html = "".join(updates(table["gm"]))
    assert token_g(gm_html, ghost) is not None and "hidden-token" in token_g(gm_html, ghost)
    for client in (table["screen"], *table["seats"]):
        html = "".join(updates(client))
        assert ghost not in html and "Ghost" not in html


def test_with_fog_a_player_who_cannot_see_the_square_gets_nothing_of_it(table):
    table["command"]({"type": "set_fog", "enabled": True})
    for client in (table["gm"], table["screen"], *table["seats"]):
        client.get_received()
    troll = table["ids"]["Troll"]  # in the right half: Olaf's Bruno sees it, Mira's Aria does not
    table["command"]({"type": "move_token", "token_id": troll, "x": 23, "y": 6})
    mira_html = "".join(updates(table["seats"][0]))
    olaf_html = "".join(updates(table["seats"][1]))
    assert mira_html == ""  # nothing of her screen changed: no update at all (#25), not even an empty one
    assert 'data-x="23" data-y="6"' in token_g(olaf_html, troll)
    # the players with no token see neither half (nothing was revealed): no Troll for them either
    for seat in table["seats"][2:]:
        html = "".join(updates(seat))
        assert troll not in html and "Troll" not in html
    assert troll in "".join(updates(table["screen"]))  # the screen sees what the players together see


def test_with_fog_a_move_that_changes_nobodys_view_sends_the_moved_token_alone(table):
    """Only when the tokens an audience is shown change does it get the whole tokens layer again."""
    table["command"]({"type": "set_fog", "enabled": True})
    olaf = table["seats"][1]
    first = "".join(updates(olaf))
    assert 'id="layer-tokens"' in first  # the fog fell: his view changed
    ids = table["ids"]
    table["command"]({"type": "move_token", "token_id": ids["Troll"], "x": 23, "y": 6})  # seen before and after
    html = "".join(updates(olaf))
    assert 'id="layer-tokens"' not in html and 'data-x="23" data-y="6"' in token_g(html, ids["Troll"])
    assert ids["Aria"] not in html and ids["Ogre"] not in html  # what he cannot see is not in it
    # the Troll steps through the open door, which then closes behind it: the layer comes again, without it
    door = next(iter(table["hub"].game(table["game"]["id"]).board.doors))
    table["command"]({"type": "set_door", "door_id": door, "closed": False})
    table["command"]({"type": "move_token", "token_id": ids["Troll"], "x": 14, "y": 4, "force": True})
    olaf.get_received()
    table["command"]({"type": "set_door", "door_id": door, "closed": True})
    html = "".join(updates(olaf))
    assert 'id="layer-tokens"' in html and ids["Troll"] not in html and "Troll" not in html
    # a screen that missed an update (its audience was not connected) gets the whole layer: its page's
    # seq is not the one its audience is at, so it is sent a fresh copy of everything
    mira = table["seats"][0]
    mira.disconnect()
    table["command"]({"type": "move_token", "token_id": ids["Ogre"], "x": 6, "y": 7, "force": True})
    again = connect(table["hub"].app, table["game"]["id"], table["players"][0]["player_token"], since=1)
    assert 'id="layer-tokens"' in "".join(updates(again))


@pytest.fixture
def renders(app, monkeypatch):
    """The names of the templates rendered while the test runs (Flask's template_rendered signal), "token" for
    each token drawn (``token_svg.svg``) and "log" for each log card (``render.log_section``): both are built in
    Python, not by a template."""
    names: list[str] = []

    def record(sender, template, context, **extra):
        names.append(template.name)

    def drawn(*args, **kwargs):
        names.append("token")
        return draw(*args, **kwargs)

    def logged(*args, **kwargs):
        names.append("log")
        return log_section(*args, **kwargs)

    draw, log_section = token_svg.svg, render.log_section
    monkeypatch.setattr(token_svg, "svg", drawn)
    monkeypatch.setattr(render, "log_section", logged)
    template_rendered.connect(record, app)
    yield names
    template_rendered.disconnect(record, app)


def test_eight_players_who_see_a_move_alike_cost_one_render_of_it(table, renders):
    ogre = table["ids"]["Ogre"]  # nobody's token, no fog: the 8 players and the screen see it alike
    table["command"]({"type": "move_token", "token_id": ogre, "x": 6, "y": 6})
    # one render for the GM (movable), one for the table screen and all eight players (none owns it)
    assert renders.count("token") == 2, renders
    assert renders.count("log") == 2, renders  # the GM's (with Undo) and the players' (the screen has none)
    seat_tags = {token_g("".join(updates(s)), ogre) for s in table["seats"]}
    assert len(seat_tags) == 1 and None not in seat_tags  # and each of them got it

    renders.clear()  # without the shared renders, the same update costs a render per audience
    hub, game_id = table["hub"], table["game"]["id"]
    game = hub.game(game_id)
    with hub.app.test_request_context():
        for audience in hub.presence.audiences(game):
            render.fragments(game, actor_for_audience(audience), {f"token:{ogre}", "log"})
    assert renders.count("token") == N_PLAYERS + 2


def test_a_whole_tokens_layer_draws_each_token_once_per_way_of_seeing_it(table, renders):
    """A fight starts: the acting ring is drawn, so every screen gets the whole tokens layer again."""
    ids = table["ids"]
    table["command"]({"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})
    # GM: 5 tokens (the Ghost too); the screen and the players who own none of them: 4, once for all seven;
    # Mira and Olaf: their own token each (the other three as the screen and every other player see them)
    assert renders.count("token") == 5 + 4 + 1 + 1, renders
    assert renders.count("_tokens.html") == 5  # GM, screen, the six alike, Mira, Olaf
    layers = {}
    for i, seat in enumerate(table["seats"]):
        html = "".join(updates(seat))
        assert html.count('<g id="layer-tokens"') == 1
        layers[i] = html[html.index('<g id="layer-tokens"'):]  # the layer and what follows it (no other token)
    assert len({layers[i] for i in range(2, N_PLAYERS)}) == 1
    assert "movable mine" in token_g(layers[0], ids["Aria"]) and "mine" not in token_g(layers[0], ids["Bruno"])
    assert "movable mine" in token_g(layers[1], ids["Bruno"]) and "mine" not in token_g(layers[1], ids["Aria"])
    assert ids["Ghost"] not in "".join(layers.values())


def compare_with_renders_alone(monkeypatch) -> list[str]:
    """From now on, every audience's fragments of an update are also rendered for it alone, at the same moment,
    and the two must be equal; returns the list of the audiences compared (it grows as updates go out)."""
    compared: list[str] = []
    alone_fragments = render.fragments

    def both(game, actor, changes, online=None, extra=None, renders=None, since=None, sent=None):
        vision = fog._vision(game)
        # a render notes the walls and tokens it drew for the audience: the twin must find the same notes
        walls_known, tokens_shown = dict(vision.walls_known), dict(vision.tokens_shown)
        alone = alone_fragments(game, actor, changes, online=online, extra=extra, since=since,
                                sent=None if sent is None else dict(sent))
        vision.walls_known, vision.tokens_shown = walls_known, tokens_shown
        shared = alone_fragments(game, actor, changes, online=online, extra=extra, renders=renders, since=since,
                                 sent=sent)
        assert shared == alone, (actor, sorted(changes))
        compared.append(actor.audience)
        return shared

    monkeypatch.setattr(render, "fragments", both)
    return compared


def test_every_audience_gets_what_a_render_for_it_alone_gives(table, monkeypatch):
    """Through moves of owned, unowned and hidden tokens, fog, a door, a fight, a template and secret
    rolls: each audience's html from the shared renders equals its own render made at the same moment."""
    compared = compare_with_renders_alone(monkeypatch)
    ids, command = table["ids"], table["command"]
    mira = table["players"][0]["player_id"]
    command({"type": "move_token", "token_id": ids["Aria"], "x": 3, "y": 3})
    command({"type": "move_token", "token_id": ids["Ogre"], "x": 6, "y": 7})
    command({"type": "move_token", "token_id": ids["Ghost"], "x": 9, "y": 7})
    command({"type": "roll", "expr": "1d6", "secret": True})
    command({"type": "roll", "expr": "2d6"})
    command({"type": "place_template", "shape": "circle", "x": 4.5, "y": 3.5, "size": 2})
    command({"type": "start_combat", "token_ids": [ids["Aria"], ids["Bruno"], ids["Ogre"], ids["Ghost"]]})
    command({"type": "next_turn"})
    command({"type": "set_fog", "enabled": True})
    command({"type": "move_token", "token_id": ids["Troll"], "x": 23, "y": 7})
    command({"type": "move_token", "token_id": ids["Aria"], "x": 4, "y": 3, "force": True})
    door = table["hub"].game(table["game"]["id"]).board.doors
    command({"type": "set_door", "door_id": next(iter(door)), "closed": False})
    command({"type": "move_token", "token_id": ids["Ogre"], "x": 6, "y": 6, "force": True})
    command({"type": "move_token", "token_id": ids["Troll"], "x": 22, "y": 7, "force": True})
    command({"type": "reveal_cells", "x": 20, "y": 0, "w": 5, "h": 5})
    command({"type": "undo"})
    command({"type": "end_combat"})
    command({"type": "add_map", "name": "Cellar", "width": 12, "height": 8})
    game = table["hub"].game(table["game"]["id"])
    cellar = next(m for m in game.maps if m != game.active_map)
    command({"type": "view_map", "map_id": cellar})  # the GM alone looks at another map
    command({"type": "move_token", "token_id": ids["Ogre"], "x": 6, "y": 7, "force": True})
    command({"type": "view_map", "map_id": None})
    command({"type": "activate_map", "map_id": cellar})  # every screen: another map
    assert compared.count("gm") >= 13 and compared.count(f"player:{mira}") >= 13 and "screen" in compared


def test_names_in_shared_fragments_are_escaped(app, table):
    """Fragments are rendered outside render_template: the html of a name is still escaped for everyone."""
    g = table["game"]
    name = '<b onmouseover="x">Bold</b>'
    token = app.test_client().post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": 10, "y": 2},
                                   headers={"Authorization": f"Bearer {g['gm_token']}"}).json["id"]
    for client in (table["gm"], table["screen"], *table["seats"]):
        client.get_received()
    table["command"]({"type": "move_token", "token_id": token, "x": 11, "y": 2})
    for client in (table["gm"], table["screen"], *table["seats"]):
        html = "".join(updates(client))
        assert "&lt;b onmouseover=&#34;x&#34;&gt;Bold" in html and "<b " not in html


def test_a_move_resends_the_templates_only_when_there_is_one_on_the_map(table):
    ogre = table["ids"]["Ogre"]
    table["command"]({"type": "move_token", "token_id": ogre, "x": 6, "y": 6})
    for client in (table["gm"], table["seats"][0]):
        html = "".join(updates(client))
        assert token_g(html, ogre) and 'id="templates-card"' not in html and 'id="layer-templates"' not in html
    table["command"]({"type": "place_template", "shape": "circle", "x": 7.5, "y": 6.5, "size": 2})
    for client in (table["gm"], table["screen"], *table["seats"]):
        client.get_received()
    table["command"]({"type": "move_token", "token_id": ogre, "x": 7, "y": 6})  # into the circle
    html = "".join(updates(table["gm"]))
    assert 'id="templates-card"' in html and 'id="layer-templates"' in html
    assert re.search(r'class="under-list">[^<]*Ogre', html)
    # a player and the table get the parts whose html changed for them (#25: an update only for what they
    # can see): the circle now has the Ogre under it
    for client in (table["seats"][0], table["screen"]):
        html = "".join(updates(client))
        assert token_g(html, ogre) and 'id="layer-templates"' in html and 'data-under="Ogre"' in html
    # taken off the map: the card says so, and the next move sends no template part again
    template_id = next(iter(table["hub"].game(table["game"]["id"]).templates))
    table["command"]({"type": "remove_template", "template_id": template_id})
    assert "No template on the map." in "".join(updates(table["gm"]))
    table["command"]({"type": "move_token", "token_id": ogre, "x": 6, "y": 6})
    assert 'id="templates-card"' not in "".join(updates(table["gm"]))
