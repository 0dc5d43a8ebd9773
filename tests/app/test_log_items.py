"""The log part renders each entry once (``logcard.log_item``): the bytes every audience gets are those the
whole loop gave, a move renders its own line only, and what an audience may not read never reaches it."""

from __future__ import annotations

import re

import pytest

from tests.helpers import connect, join, new_game
from webapp.live.screens import logcard, render
from webapp.game.core.model import GM, Actor, LogEntry


#: _log.html as it was before its entries were rendered once each: the reference for the bytes
INLINE_LOG = """<section id="log" class="card log"{% if oob %} hx-swap-oob="true"{% endif %}>
  <h2>Log{% if actor.role == "gm" %} <form data-command="undo" class="inline"><button type="submit" title="Take back the last action (the log keeps both)">Undo</button></form>{% endif %}</h2>
  <ol reversed tabindex="0" aria-label="Log entries, newest first">
  {% for entry in log %}<li class="{{ 'gm-only' if entry.audience == 'gm' }}{{ ' attack' if entry.detail and entry.detail.attack }}" data-seq="{{ entry.seq }}">{{ entry.text }}{% if entry.detail and entry.detail.attack %}{% set r = entry.detail.attack %}
    <details><summary>how</summary><ul>
      {% for roll in r.rolls %}<li>{{ roll.text }}</li>{% endfor %}
      {% for m in r.modifiers %}<li>{{ m.label }} {{ "%+g"|format(m.value) }}</li>{% endfor %}
      {#- what it did, in the result card's words (each target's effects); an effect without a card says its
          own words (``says``), else its kind, never its raw books (empty lists, ids) -#}
      {% if entry.detail.card and entry.detail.card.targets %}{% for t in entry.detail.card.targets %}<li><strong>{{ t.name }}</strong>: {{ t.effects|join('; ') or 'no effect' }}{% if t.detail %} ({{ t.detail }}){% endif %}</li>{% endfor %}
      {% else %}{% for e in r.effects %}<li>{{ e.data.says or e.kind|replace('_', ' ') }}</li>{% endfor %}{% endif %}
    </ul></details>{% endif %}</li>{% else %}<li class="empty">Nothing yet.</li>{% endfor %}
  </ol>
</section>"""

ATTACK = {"hit": True, "summary": "", "rolls": [{"text": "d20 = 17 <crit?>"}],
          "modifiers": [{"label": "range & cover", "value": -2}, {"label": "aim", "value": 1.5}],
          "effects": [{"kind": "damage", "target": "x", "data": {"amount": 7, "type": "<fire>"}},
                      {"kind": "prone", "target": "x", "data": {}}]}
CARD = {"targets": [{"id": "a", "name": "Ogre <big>", "effects": ["7 damage", "prone"], "detail": "AC 12 & more"},
                    {"id": "b", "name": "Troll", "effects": [], "detail": None}]}


pytestmark = pytest.mark.app_config(DEMO=False)


@pytest.fixture
def game(app):
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Log")
    gm = {"Authorization": f"Bearer {g['gm_token']}"}
    player = join(c, g, "Mira")
    token = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Scout", "x": 1, "y": 1}, headers=gm).json["id"]
    return g | {"player": player, "token": token}


def player_actor(game) -> Actor:
    return Actor(role="player", player_id=game["player"]["player_id"])


def log_html(html: str) -> str:
    found = re.search(r'<section id="log".*?</section>', html, re.S)
    assert found, html[:300]
    return found.group(0)


def test_every_audience_gets_the_bytes_the_inline_loop_gave(app, hub, game):
    state = hub.game(game["id"])
    state.log += [  # every shape an entry's html takes: a roll, attacks with and without several targets,
        LogEntry(seq=state.seq, text="Mira rolled d20: <b>17</b> & \"more\""),  # user text to escape
        LogEntry(seq=state.seq, text="Ogre attacks Troll: hit", detail={"attack": ATTACK, "card": CARD}),
        LogEntry(seq=state.seq, text="a lone hit", detail={"attack": ATTACK, "card": {"targets": CARD["targets"][:1]}}),
        LogEntry(seq=state.seq, text="secret roll", audience="gm", detail={"roll": {"text": "d6 = 4"}}),
    ]
    with app.test_request_context():
        env = render._fragment_env(app)
        reference = env.from_string(INLINE_LOG)
        for actor in (GM, player_actor(game)):
            for warm in (False, True):  # rendered now, then served from the entries' cache
                ctx = render.context(state, actor, fallback=render.flask_values(app))
                expected = reference.render(log=ctx["log"], actor=actor, oob=True)
                got = render.fragments(state, actor, {"log"})
                assert got == expected, (actor, warm)
            assert ("secret roll" in got) is (actor.role == "gm")
    assert "&lt;b&gt;17&lt;/b&gt; &amp; &#34;more&#34;" in got and "<b>" not in got
    assert "Ogre &lt;big&gt;" in got and "range &amp; cover -2" in got and "aim +1.5" in got


def test_an_empty_log_reads_nothing_yet_as_before(app, hub, game):
    state = hub.game(game["id"])
    state.log.clear()
    with app.test_request_context():
        reference = render._fragment_env(app).from_string(INLINE_LOG)
        for actor in (GM, player_actor(game)):
            got = render.fragments(state, actor, {"log"})
            assert got == reference.render(log=[], actor=actor, oob=True) and "Nothing yet." in got


def test_a_move_renders_its_own_line_only_for_every_audience(app, hub, game, monkeypatch):
    gm_live = connect(app, game["id"], game["gm_token"])
    seat = connect(app, game["id"], game["player"]["player_token"])
    for i in range(25):  # more than the 20 shown
        assert gm_live.emit("command", {"type": "move_token", "token_id": game["token"], "x": 2 + i % 2, "y": 1},
                            callback=True)["ok"]
    gm_live.get_received(), seat.get_received()
    rendered: list[str] = []  # each entry rendered (logcard.log_item reads it for its reader first)
    real = logcard.read_entry
    monkeypatch.setattr(logcard, "read_entry", lambda entry, lang: rendered.append(entry.text) or real(entry, lang))
    for x in (5, 6, 7):
        assert gm_live.emit("command", {"type": "move_token", "token_id": game["token"], "x": x, "y": 1},
                            callback=True)["ok"]
    assert len(rendered) == 3 and all("Scout" in text for text in rendered)
    for client in (gm_live, seat):  # each audience still gets its twenty newest, the new one first
        updates = [m["args"][0] for m in client.get_received() if m["name"] == "update"]
        last = log_html(updates[-1]["html"])
        assert last.count("<li ") == 20 and re.search(r'<li class="" data-seq="(\d+)"', last).group(1) == str(
            hub.game(game["id"]).log[-1].seq)


def test_a_gm_only_line_rendered_for_the_gm_never_reaches_a_player(app, hub, game):
    gm_live = connect(app, game["id"], game["gm_token"])
    seat = connect(app, game["id"], game["player"]["player_token"])
    ack = gm_live.emit("command", {"type": "roll", "expr": "d6", "secret": True}, callback=True)
    assert ack["ok"], ack
    assert gm_live.emit("command", {"type": "move_token", "token_id": game["token"], "x": 3, "y": 1},
                        callback=True)["ok"]
    secret = next(e for e in hub.game(game["id"]).log if e.audience == "gm")
    gm_html = "".join(m["args"][0]["html"] for m in gm_live.get_received() if m["name"] == "update")
    seat_html = "".join(m["args"][0]["html"] for m in seat.get_received() if m["name"] == "update")
    assert f'data-seq="{secret.seq}"' in gm_html and "(secret)" in gm_html
    assert "(secret)" not in seat_html and f'data-seq="{secret.seq}"' not in seat_html
    assert "Scout" in seat_html


def test_after_an_undo_and_a_reload_the_log_is_what_a_fresh_render_gives(app, hub, game):
    gm_live = connect(app, game["id"], game["gm_token"])
    for x in (2, 3, 4):
        assert gm_live.emit("command", {"type": "move_token", "token_id": game["token"], "x": x, "y": 1},
                            callback=True)["ok"]
    assert gm_live.emit("command", {"type": "undo"}, callback=True)["ok"]
    hub.games.drop(game["id"])  # as after a failed write: the state is read again from the log
    state = hub.game(game["id"])
    with app.test_request_context():
        warm = {a.role: render.fragments(state, a, {"log"}) for a in (GM, player_actor(game))}
        logcard._log_items.clear()
        cold = {a.role: render.fragments(state, a, {"log"}) for a in (GM, player_actor(game))}
    assert warm == cold and "undid" in warm["player"]


def test_the_cache_keeps_at_most_log_items_keep_entries(app, hub, game, monkeypatch):
    monkeypatch.setattr(logcard, "LOG_ITEMS_KEEP", 5)
    logcard._log_items.clear()
    state = hub.game(game["id"])
    state.log += [LogEntry(seq=state.seq, text=f"line {i}") for i in range(12)]
    with app.test_request_context():
        html = render.fragments(state, GM, {"log"})
    assert len(logcard._log_items) == 5 and "line 11" in html and "line 0" in html
    kept = {entry().text for entry, _t, _h in logcard._log_items.values()}
    # rendered newest first: the first rendered went first, the five oldest of the twenty shown stay
    assert kept == {e.text for e in state.log[-20:][:5]}
