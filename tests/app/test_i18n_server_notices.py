"""What the server pushes or answers outside a page, in each device's language (issue #37): the notice a connection
gets when it is ended (a new table-screen link, a player taken out, a room table reset), the lanes' own refusals
(too late, too many), and a refused payload's validation errors naming the field. Each device hears its own
language, whoever caused it; a device (or a script) that names none hears English, as before."""

from __future__ import annotations

import threading
import time

from webapp import create_app
from webapp.game.core import text
from webapp.live.server import lanes as lanes_module
from webapp.live.committing import TOO_LATE

from test_shared_presence import redis_server, redis_url  # noqa: F401  (fixtures)


def received(client) -> list[dict]:
    """What a test client got, even after the server closed it."""
    got, client.queue = list(client.queue), []
    return got


def ended(client) -> list[str]:
    return [m["args"][0]["message"] for m in received(client) if m["name"] == "ended"]


def device(app, lang: str | None):
    """A browser that chose ``lang`` (its ``lang`` cookie), or a script that names no language."""
    c = app.test_client()
    if lang:
        assert c.get(f"/?lang={lang}").status_code == 200
    return c


def connect(app, game_id, key, lang):
    socketio = app.extensions["tacmap_socketio"]
    link = socketio.test_client(app, auth={"game": game_id, "token": key}, flask_test_client=device(app, lang))
    assert link.is_connected()
    return link


def test_a_new_table_screen_link_ends_each_screen_with_the_notice_in_its_own_language(app, demo):
    screens = {lang: connect(app, demo.id, demo.screen_key, lang) for lang in ("de", "es", "fr", None)}
    gm = connect(app, demo.id, demo.gm_key, "en")
    for s in screens.values():
        received(s)
    ack = gm.emit("command", {"type": "rotate_screen_key"}, callback=True)
    assert ack["ok"] is True, ack
    said = {lang: ended(s) for lang, s in screens.items()}
    assert said["de"] == ["Die SL hat dem Tischbildschirm einen neuen Link gegeben: dieser hier gilt nicht mehr. "
                          "Öffne den Tischbildschirm erneut von der SL-Seite aus."]
    assert said["es"] == ["El DJ ha dado un enlace nuevo a la pantalla de mesa: este ya no funciona. Vuelve a abrir "
                          "la pantalla de mesa desde la página del DJ."]
    assert said["fr"][0].startswith("Le MJ a donné un nouveau lien à l'écran de table")
    assert said[None] == ["The GM gave the table screen a new link: this one no longer works. Open the table screen "
                          "again from the GM's page."]
    assert not any(s.is_connected() for s in screens.values()) and gm.is_connected()


def test_a_player_taken_out_reads_why_in_the_phones_language_not_the_gms(app, hub, demo):
    c = app.test_client()
    p = c.post(f"/api/games/{demo.id}/players", json={"join_code": demo.join_code, "name": "Pia"}).json
    phone = connect(app, demo.id, p["player_token"], "es")
    gm = connect(app, demo.id, demo.gm_key, "de")
    received(phone)
    ack = gm.emit("command", {"type": "remove_player", "player_id": p["player_id"]}, callback=True)
    assert ack["ok"] is True, ack
    assert ended(phone) == ["El DJ te ha sacado de esta partida."]


def test_a_room_reset_tells_each_phone_in_its_language(tmp_path):
    from webapp.web.room.room import setup_link as room_setup_link

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "ROOM": True})
    hub = app.extensions["tacmap"]
    org = app.test_client()
    token = room_setup_link(app, "http://localhost").split("token=")[1]
    assert org.post("/room/setup", data={"token": token, "password": "lantern-42",
                                         "confirm": "lantern-42"}).status_code == 302
    g = org.post("/api/games", json={"name": "Crypt", "system": "plain_grid"}).json
    assert org.post("/room/tables", data={"template": g["id"], "count": "1", "prefix": "Qux"}).status_code == 302
    (table,) = hub.store.room_tables()
    phones = {}
    for lang, name in (("de", "Pip"), ("fr", "Zoe"), (None, "Max")):
        p = app.test_client().post(f"/api/games/{table['current_game']}/players",
                                   json={"join_code": table["join_code"], "name": name}).json
        phones[lang] = connect(app, table["current_game"], p["player_token"], lang)
        received(phones[lang])
    assert org.post(f"/room/tables/{table['id']}/reset").status_code == 302
    said = {lang: ended(p) for lang, p in phones.items()}
    assert said == {"de": ["Dieser Tisch wurde für den nächsten Slot zurückgesetzt."],
                    "fr": [said["fr"][0]], None: ["This table was reset for the next slot."]}
    assert said["fr"][0] != "This table was reset for the next slot." and "table" in said["fr"][0]


def test_the_lanes_own_refusals_reach_the_sender_in_its_language(app, hub, demo):
    german = connect(app, demo.id, demo.gm_key, "de")
    sid = next(sid for sid, _actor in hub.presence.sessions(demo.id))
    assert hub.presence.session_language(sid) == "de"

    class Server:  # python-socketio without the seam the lanes hook: only their queueing is used here
        async_handlers = True

        @staticmethod
        def start_background_task(work):
            threading.Thread(target=work, daemon=True).start()

    lanes = lanes_module.Lanes(Server(), say=hub.said_to)
    answers: list[dict] = []
    gate = threading.Event()
    lane = lanes.lane(sid)
    # a command that waited past STALE_AFTER is refused as too late, in German
    lane.offer(lanes_module.Job("command", run=lambda: answers.append({"ran": True}), answer=answers.append,
                                arrived=time.monotonic() - lanes_module.STALE_AFTER - 1))
    deadline = time.monotonic() + 10
    while not answers and time.monotonic() < deadline:
        time.sleep(0.02)
    assert answers == [{"ok": False, "error": "der Server war zu beschäftigt, um das rechtzeitig zu tun; nichts hat "
                                               "sich geändert, versuch es noch einmal", "code": "busy"}]
    # more commands than a lane holds: the one past MAX_COMMANDS is refused at once, in German
    answers.clear()
    lane.offer(lanes_module.Job("command", run=gate.wait, answer=answers.append, arrived=time.monotonic()))
    time.sleep(0.2)  # the first one runs (and waits on the gate): the others queue behind it
    for _ in range(lanes_module.MAX_COMMANDS + 1):
        lane.offer(lanes_module.Job("command", run=lambda: None, answer=answers.append, arrived=time.monotonic()))
    assert {"ok": False, "error": "zu viele Befehle auf einmal; langsamer bitte", "code": "busy"} in answers
    gate.set()
    # a script's connection (no language) hears the English sentences, as before
    assert lanes_module.Lane(lambda work: None, lambda m: hub.said_to("no-such-sid", m))._say(TOO_LATE) == TOO_LATE
    german.disconnect()


def test_a_refused_payload_names_the_field_in_the_senders_language(app, hub, demo):
    token = next(t for t in hub.game(demo.id).tokens.values())
    links = {lang: connect(app, demo.id, demo.gm_key, lang) for lang in ("de", "es", None)}
    before = hub.game(demo.id).seq
    bad = {"type": "move_token", "token_id": token.id, "x": "a", "y": 1, "extra": 2}
    said = {lang: link.emit("command", bad, callback=True)["error"] for lang, link in links.items()}
    assert said[None] == "x: Input should be a valid integer; extra: Extra inputs are not permitted"
    assert said["de"] == "x: muss eine ganze Zahl sein; extra: zusätzliche Angaben sind nicht erlaubt"
    assert said["es"] == "x: debe ser un número entero; extra: no se permiten campos adicionales"
    # a counted limit says its count with the collection's name in the reader's words; a replay's refusal too
    replay = {"type": "replay", "at": 0, "on": ["gm", "screen", "gm"]}
    said = {lang: link.emit("command", replay, callback=True)["error"] for lang, link in links.items()}
    assert said[None] == "on: List should have at most 2 items after validation, not 3"
    assert said["de"] == "on: Liste darf höchstens 2 Einträge haben, nicht 3"
    # a validator's own refusal (a name with a control character) names the field in German
    name = {"type": "rename_token", "token_id": token.id, "name": "Ba\u0007d"}
    german = links["de"].emit("command", name, callback=True)["error"]
    english = links[None].emit("command", name, callback=True)["error"]
    assert german == "name: darf das Steuer-, Richtungs- oder unsichtbare Zeichen U+0007 nicht enthalten", german
    assert english.startswith("name: ") and "U+0007" in english
    assert hub.game(demo.id).seq == before  # nothing changed


def test_every_pydantic_message_here_is_pydantics_own_sentence_with_the_field_in_front():
    """The English of a refusal is pydantic's: each message id is its sentence (its placeholders as ours), so an
    English reader reads the same whether the refusal is said from its message id or from pydantic."""
    import re

    from pydantic_core import PydanticKnownError

    from webapp.game.core import validation

    samples = {"too_short": {"min_length": 2, "actual_length": 1, "field_type": "List"},
               "too_long": {"max_length": 2, "actual_length": 3, "field_type": "List"},
               "string_too_short": {"min_length": 2}, "string_too_long": {"max_length": 2}}
    for kind, msgid in validation.MESSAGES.items():
        ctx = {k: f"<{k}>" for k in re.findall(r"%\((\w+)\)s", msgid) if k != "field"}
        assert PydanticKnownError(kind, ctx or None).message() == (msgid % {**ctx, "field": "f"})[len("f: "):], kind
    for kind, (count, _one, more) in validation.COUNTED.items():
        ctx = samples[kind]
        params = {**ctx, "field": "f", "kind": ctx.get("field_type", "")}
        assert PydanticKnownError(kind, ctx).message() == (more % params)[len("f: "):], kind
    assert text.Fault("%(field)s: x %(n)s", "x 1", n=1).args == ("x 1",)


def test_the_gm_lighting_cards_dark_vision_reading_is_in_the_gms_language(app, hub):
    """The rules' reading of dark vision and dim light, shown on the GM's lighting card, is said in the page's
    language (it was the rules' English inside a translated sentence)."""
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Night", "system": "savage_worlds"}).json
    note = {}
    for lang in ("de", "en"):
        gm = device(app, lang)
        gm.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
        html = gm.get(f"/games/{g['id']}/gm").get_data(as_text=True)
        note[lang] = html.split('id="dark-vision-note">', 1)[1].split("</p>", 1)[0]
    assert note["de"].startswith("Dunkelsicht in Savage Worlds (SWADE): keine: ")
    assert "Dämmerlicht: wie helles Licht behandelt" in note["de"] and "no penalty" not in note["de"]
    assert note["en"].startswith("Dark vision in Savage Worlds (SWADE): none: ")


def test_an_attacks_refusal_names_the_tokens_in_the_senders_language(app, hub):
    """webapp/game/fight/attacks.py's refusals carry their names as parameters: a German GM and a Spanish phone read
    them whole, the JSON API the English sentence."""
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Duel", "system": "savage_worlds"}).json
    p = c.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Pia"}).json
    gm_auth = {"Authorization": f"Bearer {g['gm_token']}"}
    hero = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "x": 1, "y": 1, "owner": p["player_id"],
                                                        "kind": "pc"}, headers=gm_auth).json["id"]
    ogre = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Ogre", "x": 3, "y": 1}, headers=gm_auth).json["id"]
    gm = connect(app, g["id"], g["gm_token"], "de")
    phone = connect(app, g["id"], p["player_token"], "es")
    assert gm.emit("command", {"type": "attack", "attacker": ogre, "target": ogre}, callback=True)["error"] == \
        "eine Spielfigur kann sich nicht selbst angreifen"
    said = phone.emit("command", {"type": "attack", "attacker": ogre, "target": hero}, callback=True)["error"]
    assert said == "Ogre no es tuya", said
    said = gm.emit("command", {"type": "attack", "attacker": ogre, "target": hero, "weapon": "nope"}, callback=True)
    assert said["error"] == "Ogre hat keine Waffe 'nope'", said
    r = c.post(f"/api/games/{g['id']}/commands", json={"type": "attack", "attacker": ogre, "target": hero,
                                                         "weapon": "nope"}, headers=gm_auth)
    assert r.status_code == 422 and r.json["error"] == "Ogre has no weapon 'nope'"


def test_a_rules_setting_of_the_wrong_kind_is_refused_in_the_gms_language(app):
    g = app.test_client().post("/api/games", json={"name": "Rules", "system": "savage_worlds"}).json
    gm = connect(app, g["id"], g["gm_token"], "fr")
    bot = connect(app, g["id"], g["gm_token"], None)
    bad = {"type": "set_settings", "settings": {"min_str_penalty": "often"}}
    assert gm.emit("command", bad, callback=True)["error"] == \
        "settings.min_str_penalty : doit être oui ou non (true/false), comme la valeur par défaut True"
    assert bot.emit("command", bad, callback=True)["error"] == \
        "settings.min_str_penalty: must be yes or no (true/false), like the default True"


def test_a_connection_on_another_process_is_told_in_its_own_language(app, demo, redis_url):  # noqa: F811
    """Several processes (#37): the notice to a connection another process holds is said in the language that
    process recorded for it (the shared list of connections carries it), not the language of the one ending it."""
    from webapp.live.server import shared

    hub = app.extensions["tacmap"]
    here = shared.Shared(shared.connect(redis_url))
    there = shared.Shared(shared.connect(redis_url))
    sent = []

    class Server:
        @staticmethod
        def disconnect(sid, namespace=None):
            sent.append(("disconnect", sid))

    class SocketIO:  # what the hub asks of Flask-SocketIO here: emit to a sid, and its server's disconnect
        server = Server()

        @staticmethod
        def emit(event, data, to=None):
            sent.append((event, data, to))

    before = hub.shared, hub.socketio
    hub.shared, hub.socketio = here, SocketIO()
    try:
        there.opened("far-de", demo.id, "screen", "de")
        there.opened("far-es", demo.id, "screen", "es")
        there.opened("far-player", demo.id, "player:p1", "fr")
        assert {(c[0], c[5]) for c in here.connections(demo.id)} >= {("far-de", "de"), ("far-es", "es")}
        hub.end_sessions(demo.id, None, "The GM link now needs its password.", reload=True, role="screen")
    finally:
        hub.shared, hub.socketio = before
        here.close()
        there.close()
    told = {to: data["message"] for event, data, *rest in [s for s in sent if s[0] == "ended"] for to in rest}
    assert told == {"far-de": "Der SL-Link braucht jetzt sein Passwort.",
                    "far-es": "El enlace del DJ ahora pide su contraseña."}
    assert ("disconnect", "far-player") not in sent
