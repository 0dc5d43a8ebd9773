"""Issue #32, the per-move CPU (docs/SERVING.md "The per-move path"): what the server no longer redoes on each move,
and that each audience still gets exactly its own view and its own language.

- a fog layer a move did not change is not drawn again (``render._KEPT_PARTS``): it was, for every audience;
- ``fog.visible_tokens`` (the audience's view looked up once) is ``fog.may_see`` token by token;
- the templates' words come from the reader's language's catalog (``language.template_words``), one update
  drawn in three languages at once, each reader its own."""

from __future__ import annotations

import flask_babel

from webapp.game.bridge import fog
from webapp.live.presence import actor_for_audience

from test_broadcast_views import compare_with_renders_alone
from test_move_render_sharing import app, command, renders, table, updates  # noqa: F401 (fixtures)


def _fog_on(table) -> None:
    """Fog on, and a wall down most of the map: Mira's Ann (at 2, 2) sees little past it."""
    command(table["gm"], {"type": "add_wall", "a": [5, 0], "b": [5, 6]})
    command(table["gm"], {"type": "set_fog", "enabled": True})
    for client in (table["gm"], table["screen"], *table["seats"]):
        client.get_received()


def test_a_move_that_changes_no_fog_layer_draws_none_and_one_that_does_draws_it(table, renders, monkeypatch):
    _fog_on(table)
    gm, ids = table["gm"], table["ids"]
    command(gm, {"type": "move_token", "token_id": ids["Cat"], "x": 8, "y": 5})  # the GM's NPC: nobody's view
    for client in (gm, table["screen"], *table["seats"]):
        client.get_received()
    renders.clear()
    compared = compare_with_renders_alone(monkeypatch)  # the kept html is what a render for the audience gives
    command(gm, {"type": "move_token", "token_id": ids["Cat"], "x": 8, "y": 6})  # and back: no view changes
    # (the twin renders for each audience alone draw it; the shared ones not once)
    shared = [name for name in renders if name == "_fog.html"]
    assert len(shared) == len(compared), (renders, compared)  # only the renders alone drew a fog layer
    for client in (table["screen"], *table["seats"]):
        assert 'id="layer-fog"' not in updates(client)
    # Mira's Ann walks past the wall: Mira's view and the table screen's change, and their fog layers come, drawn anew
    renders.clear()
    compared.clear()
    command(gm, {"type": "move_token", "token_id": ids["Ann"], "x": 6, "y": 4})
    assert renders.count("_fog.html") > len(compared), renders
    mira, others = table["seats"][0], table["seats"][1:]
    assert 'id="layer-fog"' in updates(mira)
    assert 'id="layer-fog"' in updates(table["screen"])
    for seat in others:  # they own nothing: what they see is what the GM revealed, as before
        assert 'id="layer-fog"' not in updates(seat)


def test_visible_tokens_is_may_see_of_each_token(table):
    hub, g, gm = table["hub"], table["game"], table["gm"]
    command(gm, {"type": "add_wall", "a": [5, 0], "b": [5, 6]})  # Ann sees one side of it at a time
    auth = {"Authorization": f"Bearer {g['gm_token']}"}
    client = hub.app.test_client()
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Ogre", "x": 5, "y": 3, "size": 2}, headers=auth)
    hidden = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Ghost", "x": 3, "y": 3}, headers=auth).json
    command(gm, {"type": "update_token", "token_id": hidden["id"], "hidden": True})
    checked = []
    audiences = ["gm", "screen", *(f"player:{p['player_id']}" for p in table["players"])]
    for fog_on in (False, True):
        if fog_on:
            command(gm, {"type": "set_fog", "enabled": True})
        for x, y in ((4, 3), (9, 6), (11, 0), (2, 2)):  # Ann about the map: what Mira and the screen see changes
            command(gm, {"type": "move_token", "token_id": table["ids"]["Ann"], "x": x, "y": y})
            game = hub.game(g["id"])
            for audience in audiences:
                actor = actor_for_audience(audience)
                expected = [t for t in game.tokens.values() if fog.may_see(game, actor, t)]
                assert fog.visible_tokens(game, actor) == expected, (fog_on, (x, y), audience)
                checked.append(audience)
    assert len(checked) == 2 * 4 * len(audiences)


def test_one_update_is_drawn_in_each_readers_language(app, table):
    """Three phones reading English, German and French get the same move, each in its own words: the templates'
    (the log's heading, a token's role for screen readers) and the rules' (the log line)."""
    socketio = app.extensions["tacmap_socketio"]
    g = table["game"]
    phones = {}
    for lang, player in zip(("en", "de", "fr"), table["players"][1:4]):
        phone = socketio.test_client(app, auth={"game": g["id"], "token": player["player_token"]},
                                     headers={"Accept-Language": lang})
        assert phone.is_connected()
        phone.get_received()
        phones[lang] = phone
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 7, "y": 5})
    said = {lang: updates(phone) for lang, phone in phones.items()}
    assert ">Log<" in said["en"] and "Protokoll" in said["de"] and "Journal" in said["fr"], said
    assert 'aria-roledescription="token"' in said["en"]
    assert 'aria-roledescription="token"' not in said["de"] and 'aria-roledescription="token"' not in said["fr"]
    assert "Protokoll" not in said["en"] + said["fr"] and "Journal" not in said["en"] + said["de"]


def test_a_move_says_its_templates_words_without_asking_flask_babel_for_a_catalog(app, table, monkeypatch):
    """The live fragments' ``_()`` read the language's catalog found once (``language.template_words``): a move
    drawn for seven audiences in three languages asks Flask-Babel for no catalog (it did for every ``_()``)."""
    socketio = app.extensions["tacmap_socketio"]
    g = table["game"]
    for lang, player in zip(("de", "fr"), table["players"][1:3]):
        socketio.test_client(app, auth={"game": g["id"], "token": player["player_token"]},
                             headers={"Accept-Language": lang}).get_received()
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 7, "y": 5})  # warm
    asked = []
    found = flask_babel.Domain.get_translations

    def counted(self):
        asked.append(1)
        return found(self)

    monkeypatch.setattr(flask_babel.Domain, "get_translations", counted)
    command(table["gm"], {"type": "move_token", "token_id": table["ids"]["Cat"], "x": 8, "y": 5})
    assert asked == []


def test_flask_values_kept(app):
    """``render.flask_values`` keeps the context processors' values per language: they must be what a fresh
    ``update_template_context`` gives in that language (but Flask's ``g`` and ``request``, read each time),
    in a live update (``language.speaking``) and in a request whose device chose the language, room mode or not."""
    from webapp.live.screens import language, render

    def fresh() -> dict:
        out: dict = {}
        app.update_template_context(out)
        return {k: v for k, v in out.items() if k not in render.PER_CONTEXT}

    def kept() -> dict:
        now, processed, *_ = render.flask_values(app)
        assert set(now) <= set(render.PER_CONTEXT)
        return processed

    for lang in ("en", "de", "fr", "es", "en_XA"):
        with app.test_request_context(f"/?lang={lang}"):
            assert kept() == fresh() and fresh()["lang"] == lang
        with app.test_request_context("/"), language.speaking(lang):
            assert kept() == fresh() and fresh()["lang"] == lang
            assert render.flask_values(app)[1] is render.flask_values(app)[1]  # kept, not made again


def test_the_templates_kept_words_are_flask_babels(app):
    """``language.template_words``' ``gettext`` keeps what a message without parameters gave: the same words (and
    the same ``Markup`` escaping) as Flask-Babel's own in each language, with and without parameters, asked twice."""
    from flask import render_template_string

    from webapp.live.screens import language, render

    page = ('{{ _("Log") }}|{{ _("Undo") }}|{{ _("Log") }}|{{ _("no game %(id)s", id="<b>") }}|'
            '{{ _("Log entries, newest first") }}')
    for lang in ("en", "de", "fr", "es", "en_XA"):
        with app.test_request_context(f"/?lang={lang}"):
            theirs = render_template_string(page)  # Flask-Babel's gettext, the request's language
        with app.test_request_context("/"), language.speaking(lang):
            env = render._fragment_env(app)
            template = env.from_string(page)
            ctx = render.Lazy({}, *render.flask_values(app))
            ours = [env.concat(template.root_render_func(template.new_context(ctx, shared=True))) for _ in range(2)]
        assert ours == [theirs, theirs], lang
        assert "&lt;b&gt;" in theirs and "<b>" not in theirs
