"""A move's update to the other screens goes out language by language (#37's cost): the devices that read the
language drawn first hear it while the next language is drawn, the language most devices read first, the GM's
part last. Real Socket.IO test clients; the order is recorded where the hub draws (``render.fragments``) and
where it sends (``socketio.emit``)."""

from __future__ import annotations

from tests.helpers import connect
from webapp.live.screens import language, render



def device(app, game_id: str, key: str, lang: str):
    return app.extensions["tacmap_socketio"].test_client(app, auth={"game": game_id, "token": key},
                                                        headers={"Accept-Language": lang})


def test_each_language_is_sent_before_the_next_is_drawn_the_most_read_first(app, client, monkeypatch):
    g = client.post("/api/games", json={"name": "Babel", "system": "savage_worlds"}).json
    gm_auth = {"Authorization": f"Bearer {g['gm_token']}"}
    hero = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "x": 2, "y": 2}, headers=gm_auth).json["id"]
    seats = [client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": name}).json
             for name in ("Mira", "Olaf", "Pia")]
    gm = connect(app, g["id"], g["gm_token"])
    # German on two players' phones (two rooms), Spanish on one, French on the table screen
    phones = [device(app, g["id"], seat["player_token"], lang) for seat, lang in zip(seats, ("es", "de", "de"))]
    screen = device(app, g["id"], g["screen_token"], "fr")
    for c in (gm, *phones, screen):
        c.get_received()

    steps: list[tuple[str, str]] = []
    hub = app.extensions["tacmap"]
    real_fragments, real_emit = render.fragments, hub.socketio.emit

    # only this test's game: the patches are the process's, and a task of an earlier test's app may still draw
    def fragments(game, actor, *args, **kwargs):
        if game.id == g["id"]:
            steps.append(("draw", language.reader_language()))
        return real_fragments(game, actor, *args, **kwargs)

    def emit(event, data, to=None, **kwargs):
        if event == "update":
            for room in [r for r in ([to] if isinstance(to, str) else to) if g["id"] in r]:
                steps.append(("send", room.partition("|")[2] + (" gm" if room.partition("|")[0].endswith(":gm") else "")))
        return real_emit(event, data, to=to, **kwargs)

    monkeypatch.setattr(render, "fragments", fragments)
    monkeypatch.setattr(hub.socketio, "emit", emit)
    for x in (4, 5, 6):  # three moves: each goes out the same way
        steps.clear()
        ack = gm.emit("command", {"type": "move_token", "token_id": hero, "x": x, "y": 2}, callback=True)
        assert ack["ok"], ack
        # German (two rooms) first, then Spanish and French (a room each), the GM (English) last
        languages = []
        for kind, lang in steps:
            if not languages or languages[-1] != (kind, lang):
                languages.append((kind, lang))
        assert languages == [("draw", "de"), ("send", "de"), ("draw", "es"), ("send", "es"), ("draw", "fr"),
                             ("send", "fr"), ("draw", "en"), ("send", "en gm")], steps
        # and each device heard the move once, in its own language: the phones' log line, the screen's token
        said = {"de": f"Hero zieht nach ({x}, 2)", "es": f"Hero se mueve a ({x}, 2)", "fr": 'aria-roledescription="pion"'}
        for c, lang in zip((*phones, screen), ("es", "de", "de", "fr")):
            updates = [m["args"][0]["html"] for m in c.get_received() if m["name"] == "update"]
            assert len(updates) == 1 and updates[0].count(said[lang]) == 1, (lang, updates)
