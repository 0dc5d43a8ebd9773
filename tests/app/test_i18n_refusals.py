"""Refusals built from names and numbers (issue #37): a message id with its parameters, said to the sender in the
sender's language with the names filled in, by form, htmx and Socket.IO; a sender that names no language hears
the English sentence, unchanged."""

from __future__ import annotations

import json

from markupsafe import escape

from webapp.game.bridge.describe import square_name
from webapp.game.core.model import Rejected
from webapp.game.core.text import N_


def test_a_refusal_keeps_its_english_sentence_and_carries_its_message_id_and_names():
    exc = Rejected(N_("%(name)s has no way from %(here)s to %(there)s"), code="no_way", name="Mira",
                   here="Hall", there="Crypt")
    assert str(exc) == "Mira has no way from Hall to Crypt" and exc.code == "no_way"
    assert exc.msgid == "%(name)s has no way from %(here)s to %(there)s"
    assert exc.params == {"name": "Mira", "here": "Hall", "there": "Crypt"}
    plain = Rejected(N_("the door is already open"))
    assert str(plain) == "the door is already open" and plain.msgid is None and plain.code is None


def _shown_token(hub, demo):
    return next(t for t in hub.game(demo.id).tokens.values() if not t.hidden)


def test_a_german_gm_hears_a_form_and_an_htmx_refusal_in_german_with_the_names_filled_in(app, hub, demo):
    token = _shown_token(hub, demo)
    url = f"/games/{demo.id}/commands"
    stay = {"type": "move_token", "token_id": token.id, "x": str(token.x), "y": str(token.y)}
    door = {"type": "set_door", "door_id": "nope", "closed": "true"}
    german = app.test_client()
    german.get(f"/games/{demo.id}/gm?key={demo.gm_key}&lang=de")
    r = german.post(url, data=stay)
    assert r.status_code == 422
    assert r.get_data(as_text=True) == escape(f"{token.name} steht schon auf {square_name(token.x, token.y)}")
    r = german.post(url, data=door, headers={"HX-Request": "true"})
    assert json.loads(r.headers["HX-Trigger"]) == {"tacmap:refused": "keine Tür 'nope' auf dieser Karte"}
    english = app.test_client()
    english.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    r = english.post(url, data=stay)
    assert r.status_code == 422
    assert r.get_data(as_text=True) == escape(f"{token.name} is already at {square_name(token.x, token.y)}")
    r = english.post(url, data=door, headers={"HX-Request": "true"})
    assert json.loads(r.headers["HX-Trigger"]) == {"tacmap:refused": "no door 'nope' on this map"}


def test_socket_refusals_from_several_modules_and_the_hub_reach_each_sender_in_its_language(app, hub, demo):
    game = hub.game(demo.id)
    name = game.maps[game.active_map].name
    w, h = game.board.width, game.board.height
    socketio = app.extensions["tacmap_socketio"]
    spanish_device, german_device = app.test_client(), app.test_client()
    spanish_device.get("/?lang=es")
    german_device.get("/?lang=de")
    links = {
        "es": socketio.test_client(app, flask_test_client=spanish_device, auth={"game": demo.id, "token": demo.gm_key}),
        "de": socketio.test_client(app, flask_test_client=german_device, auth={"game": demo.id, "token": demo.gm_key}),
        "en": socketio.test_client(app, auth={"game": demo.id, "token": demo.gm_key}),  # a script: no language
    }
    said = {lang: {
        "handout": link.emit("command", {"type": "remove_handout", "handout_id": "h404"}, callback=True),
        "map": link.emit("command", {"type": "activate_map", "map_id": game.active_map}, callback=True),
        "control": link.emit("command", {"type": "remove_handout", "handout_id": "h\u0001"}, callback=True),
        "light": link.emit("command", {"type": "set_lighting", "ambient": "bright"}, callback=True),
        "ping": link.emit("map_ping", {"x": w + 40, "y": 1}, callback=True),
        "preview": link.emit("preview", {"token_id": "ghost", "x": 1, "y": 1}, callback=True),
    } for lang, link in links.items()}
    assert all(ack["ok"] is False for answers in said.values() for ack in answers.values()), said
    errors = {lang: {k: ack["error"] for k, ack in answers.items()} for lang, answers in said.items()}
    assert errors["de"]["handout"] == "kein Handout 'h404' in diesem Spiel"
    assert errors["es"]["handout"] == "no hay ningún handout 'h404' en esta partida"
    assert errors["en"]["handout"] == "no hand-out 'h404' in this game"
    assert errors["de"]["control"] == ("handout_id: darf das Steuer-, Richtungs- oder unsichtbare Zeichen U+0001 "
                                       "nicht enthalten")
    assert errors["en"]["control"] == "handout_id: may not hold the control, direction or invisible character U+0001"
    assert game.maps[game.active_map].ambient == "bright"  # the demo's map, lit: already so
    assert errors["de"]["light"] == f"{name} liegt schon in hellem Licht"
    assert errors["es"]["light"] == f"{name} ya está con luz brillante"
    assert errors["en"]["light"] == f"{name} is in bright light already"
    assert errors["de"]["ping"] == f"({w + 40}, 1) liegt außerhalb der Karte ({w} x {h})"
    assert errors["es"]["ping"] == f"({w + 40}, 1) está fuera del mapa ({w} x {h})"
    assert errors["en"]["ping"] == f"({w + 40}, 1) is off the map ({w} x {h})"
    assert errors["de"]["preview"] == "keine Spielfigur 'ghost' in diesem Spiel"
    assert errors["en"]["preview"] == "no token 'ghost' in this game"
    assert errors["en"]["map"] == f"{name} is already the map everyone sees"
    assert errors["de"]["map"] == f"{name} ist schon die Karte, die alle sehen"
    assert errors["es"]["map"] == f"{name} ya es el mapa que ven todos"
    for link in links.values():
        link.disconnect()
