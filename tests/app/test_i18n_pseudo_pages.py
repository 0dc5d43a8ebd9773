"""Every page and every live fragment in the pseudo-locale en_XA (issue #37): each text a person reads (a text
node, a title, aria-label, placeholder, alt or confirm question) comes from a catalog, so in en_XA it is
accented and in [ ... ·]. What is left after taking out the pseudo-translated parts and the data (names of games,
tokens, players, maps and systems, numbers, dice, join codes, the product name, the weapons' names and the
entries a sheet holds) must hold no English word, in every game system: the rules' words (the "rules" domain:
log lines, roll purposes, modifiers, actions and why one is not open, the forms' choices) included. Terms kept in
English on purpose (docs/TRANSLATING.md: Atomic Tomorrow's capitalised attributes, GURPS's ST/DX/IQ/HT) are
marked ``translate="no"`` where they show, as data; no pattern lets English through."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from flask_babel import force_locale

import rules
from webapp import create_app
from webapp.live import render
from webapp.live.hub import actor_for_audience

#: pages wholly another domain's, not yet translated (none now)
PENDING_PAGES: dict[str, str] = {}

#: every game system (the rules of each speak in the log, the actions, the attack options)
SYSTEMS = [s.id for s in rules.systems()]

TEXT_ATTRS = ("title", "aria-label", "placeholder", "alt", "data-confirm", "hx-confirm")
SKIP_TAGS = {"script", "style", "textarea"}  # a textarea holds a value someone typed, not the page's words
#: a date or time as babel writes it for the locale (en_XA writes English's): data
DATE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d\d:\d\d")
PSEUDO_PART = re.compile(r"\[[^\[\]]*·\]")
#: a pseudo-translated text split by markup (<i>, <strong>): its opening part, its closing part, a word between
PSEUDO_OPEN, PSEUDO_CLOSE = re.compile(r"\[[^\[\]]*$"), re.compile(r"^[^\[\]]*·\]")
PSEUDO_WORD = re.compile(r"\S*[áÅçÇéÉĝĜîÎķĶłŁñÑöÖŕŔšŠüÜŵŴýÝžŽ]\S*")
URL = re.compile(r"https?://\S+")
#: GURPS's damage notation, kept as GURPS prints it in every language (docs/TRANSLATING.md): data
DAMAGE_CODE = re.compile(r"\b(?:thr|sw)(?:[+-]\d+)?(?!\w)|(?<!\w)(?:cr|cut|imp|pi\+{0,2}|pi-)(?!\w)")
DICE = re.compile(r"\b\d*d\d+(?:[+-]\d+)?\b|\b\d+d\b|\b\d+dT\b")  # 3dT: Tesseris's dice, notation as typed
WORD = re.compile(r"[A-Za-z]{2,}")


class Texts(HTMLParser):
    """(text, where) of every text node and text attribute, but inside script/style or translate="no"."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.found: list[tuple[str, str]] = []

    def skipping(self) -> bool:
        return any(skip for _, skip in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        skip = tag in SKIP_TAGS or a.get("translate") == "no"
        void = tag in ("input", "img", "br", "hr", "meta", "link", "source", "col", "area", "wbr", "path", "line",
                       "rect", "circle", "polygon", "polyline", "use", "ellipse", "stop", "image")
        if not (skip or self.skipping()):
            for name in TEXT_ATTRS:
                if a.get(name):
                    self.found.append((a[name], f"<{tag} {name}>"))
            if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
                self.found.append((a["value"], f"<{tag} value>"))
        if not void:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        if not (self.skipping() or a.get("translate") == "no"):
            for name in TEXT_ATTRS:
                if a.get(name):
                    self.found.append((a[name], f"<{tag} {name}>"))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if data.strip() and not self.skipping():
            where = "/".join(t for t, _ in self.stack[-3:])
            self.found.append((data, where))


def leftover(text: str, data: list[str]) -> str:
    """What of a text is neither pseudo-translated nor data."""
    before = None
    while before != text:  # a pseudo-translated text may hold another (a translated word as its parameter)
        before, text = text, PSEUDO_PART.sub(" ", text)
    text = PSEUDO_WORD.sub(" ", PSEUDO_CLOSE.sub(" ", PSEUDO_OPEN.sub(" ", URL.sub(" ", text))))
    for d in data:
        text = re.sub(r"(?<!\w)" + re.escape(d) + r"(?!\w)", " ", text)
    text = DAMAGE_CODE.sub(" ", DICE.sub(" ", DATE.sub(" ", text)))
    return " ".join(text.split())


def untranslated(html: str, data: list[str]) -> list[str]:
    parser = Texts()
    parser.feed(html)
    bad = []
    for text, where in parser.found:
        rest = leftover(text, data)
        if not WORD.search(rest):
            continue
        bad.append(f"{where}: {' '.join(text.split())[:160]!r} (left: {rest[:80]!r})")
    return sorted(set(bad))


def data_of(hub, game_id: str | None = None) -> list[str]:
    """The names a table gives things (data, not text): longest first, so a name inside another goes after it."""
    names = {"tacmap"}
    for system in rules.systems():
        names |= {system.name, system.id}
    for record in hub.store.games():
        names |= {record.name, record.join_code}
    games = [hub.game(game_id)] if game_id else [hub.game(r.id) for r in hub.store.games()]
    for game in games:
        names |= {t.name for t in game.tokens.values()} | {p.name for p in game.players.values()}
        names |= {t.name[:2] for t in game.tokens.values()}  # a token's initials on the map
        # the weapons a token's sheet carries, or the system's example sheet it starts from (Long sword...)
        example = next((s.default_sheet() for s in rules.systems() if s.id == game.system), {})
        for sheet in [example, *(t.sheet for t in game.tokens.values())]:
            names |= set(weapon_names(sheet))
        names |= {m.name for m in getattr(game, "maps", {}).values() if getattr(m, "name", None)}
        for zone in (game.zones.zones.values() if game.zones is not None and hasattr(game.zones, "zones") else ()):
            names.add(getattr(zone, "name", ""))
        for zone in (game.zones if isinstance(game.zones, list) else ()):  # a zone map's zones (Atomic Tomorrow)
            names.add(zone.get("name", "") if isinstance(zone, dict) else "")
        for c in getattr(game, "characters", {}).values():  # a character sheet's entries (weapons, edges...)
            names |= set(strings_in(getattr(c, "sheet", None) or getattr(c, "__dict__", {})))
    return sorted((n for n in names if n), key=len, reverse=True)


def weapon_names(sheet) -> list[str]:
    """The names of a sheet's weapons (a table's own words: data), as a sheet keeps them: a dict by name or a
    list of entries with a name."""
    weapons = sheet.get("weapons") if isinstance(sheet, dict) else None
    if isinstance(weapons, dict):
        return [str(k) for k in weapons] + [str(w["name"]) for w in weapons.values() if isinstance(w, dict) and w.get("name")]
    if isinstance(weapons, list):
        return [str(w.get("name")) for w in weapons if isinstance(w, dict) and w.get("name")]
    return []


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(k) + strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DICE_SEED": "7"})


def pseudo_client(app):
    c = app.test_client()
    assert c.get("/?lang=en_XA").status_code == 200  # the cookie: every later page in en_XA
    return c


def fight(app, system_id: str):
    """A game of this system with a player, a PC and two foes, a fight started and an attack made."""
    api = app.test_client()
    g = api.post("/api/games", json={"name": "Ruins", "system": system_id,
                                     "map": {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 3]}]}}).json
    if "id" not in g:  # a system that plays on zone maps (Atomic Tomorrow): its default zone map
        g = api.post("/api/games", json={"name": "Ruins", "system": system_id}).json
    p = api.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    ids = {}
    zoned = isinstance(app.extensions["tacmap"].game(g["id"]).zones, list)
    for name, (x, y), owner, zone in [("Hero", (2, 2), p["player_id"], "west"), ("Bandit", (3, 2), None, "west"),
                                      ("Brute", (8, 5), None, "east")]:
        where = {"zone": zone} if zoned else {"x": x, "y": y}
        body = {"name": name, **where, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids[name] = api.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return api, g, p, ids


def command(api, g, token, body):
    return api.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(token))


def scripted_fight(api, g, p, ids):
    """Three rounds: a move, an attack (answered defenses picked by the rules), the next turn; every step's
    command sent whether or not the rules accept it in that system (a refusal changes nothing)."""
    gm = g["gm_token"]
    steps = [{"type": "start_combat", "token_ids": list(ids.values())}]
    for _round in range(3):
        steps += [
            {"type": "move_token", "token_id": ids["Hero"], "x": 3, "y": 3},
            {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"]},
            {"type": "attack", "attacker": ids["Bandit"], "target": ids["Hero"]},
            {"type": "roll", "expr": "2d6+1"},
            {"type": "next_turn"}, {"type": "next_turn"}, {"type": "next_turn"},
        ]
    for step in steps:
        yield step, command(api, g, gm, step)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_page_of_a_running_fight_is_in_the_pseudo_locale(app, system_id):
    hub = app.extensions["tacmap"]
    api, g, p, ids = fight(app, system_id)
    for _step, _answer in scripted_fight(api, g, p, ids):
        pass
    command(api, g, g["gm_token"], {"type": "start_combat", "token_ids": list(ids.values())})
    data = data_of(hub, g["id"])
    gm = pseudo_client(app)
    pages = {}
    pages["lobby"] = gm.get("/").get_data(as_text=True)
    pages["join"] = gm.get(f"/join?code={g['join_code']}").get_data(as_text=True)
    gm.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    pages["gm"] = gm.get(f"/games/{g['id']}/gm").get_data(as_text=True)
    pages["sheet"] = gm.get(f"/games/{g['id']}/tokens/{ids['Hero']}/sheet").get_data(as_text=True)
    pages["recap"] = gm.get(f"/games/{g['id']}/recap").get_data(as_text=True)
    pages["error"] = gm.get("/games/nosuch/gm").get_data(as_text=True)
    screen = pseudo_client(app)
    pages["screen"] = screen.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    phone = pseudo_client(app)
    r = phone.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True)
    pages["phone"] = r.get_data(as_text=True)
    pages["help"] = phone.get("/help/").get_data(as_text=True)
    pages["help system"] = phone.get(f"/help/{system_id}").get_data(as_text=True)
    # the GM password page: the game's GM link locked with a password
    from webapp.game import keys
    from webapp.game.model import GM

    hub.security_command(g["id"], GM, keys.parse({"type": "set_gm_password", "password": "secret-1"}))
    locked = pseudo_client(app)
    pages["gm password"] = locked.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'id="gm-password"' in pages["gm password"]
    assert 'id="combat"' in pages["gm"] and 'lang="en-XA"' in pages["gm"], "the GM page, in en_XA, with its fight"
    assert 'id="live"' in pages["phone"] and 'id="live"' in pages["screen"] and r.status_code == 200
    problems = {name: untranslated(html, data) for name, html in pages.items() if name not in PENDING_PAGES}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, "\n".join(f"[{k}] {line}" for k, v in problems.items() for line in v)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_live_update_of_a_scripted_fight_is_in_the_pseudo_locale(app, system_id):
    """The live fragments (render.fragments, what the hub sends each audience after a command), rendered in
    en_XA for the GM, the player and the table screen after every step of three rounds of a fight."""
    hub = app.extensions["tacmap"]
    api, g, p, ids = fight(app, system_id)
    audiences = ["gm", "screen", f"player:{p['player_id']}"]
    problems: dict[str, list[str]] = {}
    rendered = 0
    for step, answer in scripted_fight(api, g, p, ids):
        game = hub.game(g["id"])
        data = data_of(hub, g["id"])
        for audience in audiences:
            with app.test_request_context("/"), force_locale("en_XA"):
                html = render.fragments(game, actor_for_audience(audience), render.EVERYTHING)
            rendered += 1
            for line in untranslated(html, data):
                problems.setdefault(f"{step['type']} -> {audience}", []).append(line)
    assert rendered >= 3 * 7 * 3
    assert not problems, "\n".join(f"[{k}] {line}" for k, v in problems.items() for line in v[:40])
