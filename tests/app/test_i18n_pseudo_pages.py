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
from tests.helpers import command, join, new_game, put_token
from webapp import create_app, launch
from webapp.live.screens import render
from webapp.live.presence import actor_for_audience

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
#: what is left of a list of data once the data are taken out: its joins (CLDR's list pattern, locale data)
LIST_JOINS = re.compile(r"(?:,|and)(?: (?:,|and))*")
URL = re.compile(r"https?://\S+")
#: GURPS's damage notation, kept as GURPS prints it in every language (docs/TRANSLATING.md): data
DAMAGE_CODE = re.compile(r"\b(?:thr|sw)(?:[+-]\d+)?(?!\w)|(?<!\w)(?:cr|cut|imp|pi\+{0,2}|pi-)(?!\w)")
#: Savage Worlds' action cards in their short code ("KS", "10H", "AD"; "BJ"/"RJ" the Jokers): kept as dealt in
#: every language, as the tracker and the log write them: notation like dice, not words (docs/TRANSLATING.md)
CARD = re.compile(r"(?<![\w-])(?:[2-9JQKA]|10)[SHDC](?![\w-])|(?<![\w-])[BR]J(?![\w-])")
DICE = re.compile(r"\b\d*d\d+(?:[+-]\d+)?\b|\b\d+d\b|\b\d+dT\b", re.I)
WORD = re.compile(r"[A-Za-z]{2,}")
#: the words of a command after its launcher: a subcommand, an option, a value with a digit, dot or slash (a game's id,
#: a file, a folder), a placeholder in capitals (FILE)
COMMAND_WORD = (r"(?:serve|list|export|import-map|import|backup|repair|room-password|migrate-data|--[a-z][\w-]*"
                r"|[^\s⟦⟧\[\]·`]*[\d./\\][^\s⟦⟧\[\]·`]*|[A-Z]+)(?![\w-])")


def command_named() -> re.Pattern:
    """A command this server names for its user to type (webapp/launch.py: ``tacmap serve --room``, ``python3
    scripts/tacmap-start export 3f9a0c1e 3f9a0c1e.tacmap``): typed as it is in every language, so data."""
    return re.compile(re.escape(launch.launcher()) + rf"(?: {COMMAND_WORD})*")


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


#: a value said inside a pseudo-translated message: the pseudo-locale marks each placeholder ⟦ ⟧ (webapp.web.i18n
#: .pseudo); innermost first, and a value that markup splits across text nodes (its opening or closing part)
VALUE = re.compile(r"⟦([^⟦⟧]*)⟧")
VALUE_OPEN, VALUE_CLOSE = re.compile(r"⟦([^⟦⟧]*)$"), re.compile(r"^([^⟦⟧]*)⟧")


def leftovers(text: str, data: list[str]) -> list[str]:
    """What of a text is neither pseudo-translated nor data, in parts. Each value a translated message says (marked ⟦ ⟧)
    is looked at on its own, as a text of its own: English passed into a translated sentence is not hidden by
    the sentence around it: it is a part of its own."""
    values: list[str] = []

    def take(m: re.Match) -> str:
        values.append(m.group(1))
        return " "

    before = None
    while before != text:
        before, text = text, VALUE.sub(take, text)
    text = VALUE_CLOSE.sub(take, VALUE_OPEN.sub(take, text))
    return [part for part in (_leftover(t, data) for t in [*values, text]) if part]


def _leftover(text: str, data: list[str]) -> str:
    before = None
    while before != text:  # a pseudo-translated text may hold another (a translated word as its parameter)
        before, text = text, PSEUDO_PART.sub(" ", text)
    text = PSEUDO_WORD.sub(" ", PSEUDO_CLOSE.sub(" ", PSEUDO_OPEN.sub(" ", URL.sub(" ", text))))
    text = command_named().sub(" ", text)
    for d in data:
        if d in text:  # a name the text does not hold cannot match (the same result, without a regex per name)
            text = re.sub(r"(?<!\w)" + re.escape(d) + r"(?!\w)", " ", text)
    text = " ".join(CARD.sub(" ", DAMAGE_CODE.sub(" ", DICE.sub(" ", DATE.sub(" ", text)))).split())
    # names listed as the locale lists them (babel's format_list: en_XA writes English's "A, B and C"): data
    return "" if LIST_JOINS.fullmatch(text) else text


def untranslated(html: str, data: list[str]) -> list[str]:
    parser = Texts()
    parser.feed(html)
    bad = []
    for text, where in parser.found:
        rests = [rest for rest in leftovers(text, data) if WORD.search(rest)]
        if rests:
            bad.append(f"{where}: {' '.join(text.split())[:160]!r} (left: {' | '.join(rests)[:120]!r})")
    return sorted(set(bad))


def test_the_check_sees_english_passed_into_a_translated_sentence():
    """A value said inside a pseudo-translated message is checked on its own: English in it is found (a rules'
    reading, a word like "squares"), data and a translated value are not, however deeply nested."""
    from webapp.web.i18n import pseudo

    sentence = pseudo("%(name)s moves %(distance)s (%(why)s)")
    assert "⟦%(name)s⟧" in sentence
    english = sentence % {"name": "Hero", "distance": "3 squares", "why": pseudo("difficult ground")}
    assert untranslated(f"<p>{english}</p>", ["Hero"]) == [
        f"p: {english!r} (left: '3 squares')"]
    inner = pseudo("%(n)s squares") % {"n": 3}
    fine = sentence % {"name": "Hero", "distance": inner, "why": pseudo("%(list)s") % {"list": "Hero and Bandit"}}
    assert untranslated(f"<p>{fine}</p>", ["Hero", "Bandit"]) == []
    split = sentence.replace("⟦%(distance)s⟧", "⟦<b>%(distance)s</b>⟧")  # a value that is markup itself
    assert untranslated(split % {"name": "Hero", "distance": "3 squares", "why": "1d6"}, ["Hero"])
    # an action card's code is notation (like dice); a card's name in English words is not
    dealt = pseudo("%(name)s is dealt %(card)s")
    assert untranslated(f"<p>{dealt % {'name': 'Hero', 'card': '10H'}}</p>", ["Hero"]) == []
    assert untranslated(f"<p>{dealt % {'name': 'Hero', 'card': 'RJ'}}</p>", ["Hero"]) == []
    assert untranslated(f"<p>{dealt % {'name': 'Hero', 'card': 'King of Spades'}}</p>", ["Hero"])
    assert untranslated(f"<p>{dealt % {'name': 'Hero', 'card': 'KSH'}}</p>", ["Hero"])


def test_a_command_the_server_names_is_data(monkeypatch):
    """The commands a message names for its user to type (webapp/launch.py, #71) are typed as they are in every
    language: data, whichever launcher started the server; English words in their place are not."""
    from webapp.web.i18n import pseudo

    sentence = pseudo("start it with: %(command)s")
    for launcher in (None, "python3 scripts/tacmap-start"):
        if launcher:
            monkeypatch.setenv(launch.ENV, launcher)
        else:
            monkeypatch.delenv(launch.ENV, raising=False)
        for named in (launch.serve_command("--open-lobby"), launch.command("export", "3f9a0c1e", "3f9a0c1e.tacmap")):
            assert untranslated(f"<p>{sentence % {'command': named}}</p>", []) == [], named
        assert untranslated(f"<p>{sentence % {'command': launch.serve_command() + ' again'}}</p>", [])
    assert untranslated(f"<p>{sentence % {'command': 'the server'}}</p>", [])


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
            if game.system in OWN_SKILLS:
                names |= set(skill_names(sheet))
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


#: the systems whose sheets hold skills as the table's own entries (a "skills" table a GM types, like a weapon's
#: name: data, docs/TRANSLATING.md "Skill names a sheet holds as its own entries"); the others have a fixed list
OWN_SKILLS = {"gurps_lite", "phase_tn"}


def skill_names(sheet) -> list[str]:
    """The skills a sheet names in its own "skills" table (their names as typed)."""
    skills = sheet.get("skills") if isinstance(sheet, dict) else None
    return [str(k) for k in skills] if isinstance(skills, dict) else []


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(k) + strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


pytestmark = pytest.mark.app_config(DICE_SEED="7")


def pseudo_client(app):
    c = app.test_client()
    assert c.get("/?lang=en_XA").status_code == 200  # the cookie: every later page in en_XA
    return c


def ruins_with_foes(app, system_id: str):
    """A game of this system with a player, her PC and two foes (the fight: ``scripted_fight``)."""
    api = app.test_client()
    g = api.post("/api/games", json={"name": "Ruins", "system": system_id,
                                     "map": {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 3]}]}}).json
    if "id" not in g:  # a system that plays on zone maps (Atomic Tomorrow): its default zone map
        g = new_game(api, system_id, name="Ruins")
    p = join(api, g, "Mira")
    ids = {}
    zoned = isinstance(app.extensions["tacmap"].game(g["id"]).zones, list)
    for name, (x, y), owner, zone in [("Hero", (2, 2), p["player_id"], "west"), ("Bandit", (3, 2), None, "west"),
                                      ("Brute", (8, 5), None, "east")]:
        ids[name] = put_token(api, g, name, zone if zoned else (x, y), owner)
    return api, g, p, ids


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
        yield step, command(api, g, step, gm)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_page_of_a_running_fight_is_in_the_pseudo_locale(app, system_id):
    hub = app.extensions["tacmap"]
    api, g, p, ids = ruins_with_foes(app, system_id)
    for _step, _answer in scripted_fight(api, g, p, ids):
        pass
    command(api, g, {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
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
    from webapp.game.tableside import keys
    from webapp.game.core.model import GM

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
    api, g, p, ids = ruins_with_foes(app, system_id)
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


# --- the pages added lately, room mode and the pushed notices (i18n-rest, #37) ----------------------------------

def pseudo_clients(app) -> None:
    """Every client ``app.test_client()`` makes from now on names the pseudo-locale in its Accept-Language (a
    browser that asks for it by name), as the session's client class does otherwise (its CSRF token)."""
    from flask import Flask

    class PseudoClient(Flask.test_client_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en-XA"

    app.test_client_class = PseudoClient


def test_the_recap_replay_timeline_security_card_and_error_pages_are_in_the_pseudo_locale(app):
    """The recap page and its download, the GM's replay timeline, the Security card with a password set, the
    pages of a 403, a 404, a 413 and a refused form, after a fight of three rounds."""
    hub = app.extensions["tacmap"]
    api, g, p, ids = ruins_with_foes(app, "savage_worlds")
    for _step, _answer in scripted_fight(api, g, p, ids):
        pass
    data = data_of(hub, g["id"])
    gm = pseudo_client(app)
    gm.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    pages = {
        "recap": gm.get(f"/games/{g['id']}/recap").get_data(as_text=True),
        "recap download": gm.get(f"/games/{g['id']}/recap?download=1").get_data(as_text=True),
        "recap embedded": gm.get(f"/games/{g['id']}/recap?embed=1").get_data(as_text=True),
        "404": gm.get("/no/such/page").get_data(as_text=True),
        "403": pseudo_client(app).get(f"/games/{g['id']}/gm?key=forged").get_data(as_text=True),
        "413": gm.post(f"/games/{g['id']}/commands", data={"type": "roll", "expr": "x" * 3_000_000}).get_data(as_text=True),
    }
    # the GM's replay timeline (JSON the replay panel shows): each moment's words
    timeline = gm.get(f"/games/{g['id']}/timeline").json
    assert len(timeline["moments"]) >= 3, timeline
    pages["timeline"] = "".join(f"<p>{escape_text(str(m.get('text', '')))}</p>" for m in timeline["moments"])
    from webapp.game.tableside import keys
    from webapp.game.core.model import GM

    hub.security_command(g["id"], GM, keys.parse({"type": "set_gm_password", "password": "secret-1"}))
    pages["security card"] = gm.post(f"/games/{g['id']}/security", data={"type": "rotate_join_code"}).get_data(as_text=True)
    assert "download" in pages["recap download"].lower() or "<html" in pages["recap download"]
    problems = {name: untranslated(html, data + [hub.store.game(g["id"]).join_code]) for name, html in pages.items()}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, "\n".join(f"[{k}] {line}" for k, v in problems.items() for line in v)


def test_room_mode_pages_and_table_sheets_are_in_the_pseudo_locale(tmp_path):
    """The organiser's page, its table list, the printed sheets, the /pin page, setup, login, reset and closed
    pages (every state tests/app/test_room_i18n.py renders), in en_XA through the app's own catalogs."""
    from test_room_i18n import every_room_page

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "ROOM": True})
    pseudo_clients(app)
    pages, data = every_room_page(app)
    hub = app.extensions["tacmap"]
    data = sorted(set(data) | set(data_of(hub)), key=len, reverse=True)
    assert 'lang="en-XA"' in pages["organiser page, tables made"]
    problems = {name: untranslated(html, data) for name, html in pages.items()}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, "\n".join(f"[{k}] {line}" for k, v in problems.items() for line in v)


def test_the_pushed_notices_and_socket_refusals_are_in_the_pseudo_locale(app):
    """What a connection is told outside a page: the notice when it is ended, a refused payload naming its
    field, the lanes' and the socket handlers' own refusals."""
    hub = app.extensions["tacmap"]
    api, g, p, ids = ruins_with_foes(app, "plain_grid")
    socketio = app.extensions["tacmap_socketio"]

    def link(key):
        c = socketio.test_client(app, auth={"game": g["id"], "token": key}, flask_test_client=pseudo_client(app))
        assert c.is_connected()
        return c

    screen, phone, gm = link(g["screen_token"]), link(p["player_token"]), link(g["gm_token"])
    said = [
        gm.emit("command", {"type": "move_token", "token_id": ids["Hero"], "x": "a", "y": 1, "z": 0}, callback=True),
        gm.emit("command", {"type": "replay", "at": 0, "on": ["gm", "screen", "gm"]}, callback=True),
        gm.emit("command", {"type": "rename_token", "token_id": ids["Hero"], "name": "A\u0007"}, callback=True),
        gm.emit("command", "not an object", callback=True),
        gm.emit("sync", 5, callback=True),
    ]
    sid = next(s for s, actor in hub.presence.sessions(g["id"]) if actor.role == "gm")
    from webapp.live.server import lanes
    from webapp.live.committing import TOO_LATE

    said.append({"error": hub.said_to(sid, TOO_LATE)})
    said.append({"error": hub.said_to(sid, lanes.TOO_MANY)})
    said.append({"error": hub.said_to(sid, lanes.FAILED)})
    for c in (screen, phone):
        c.get_received()
    assert gm.emit("command", {"type": "rotate_screen_key"}, callback=True)["ok"]
    assert gm.emit("command", {"type": "remove_player", "player_id": p["player_id"]}, callback=True)["ok"]
    notices = [m["args"][0]["message"] for c in (screen, phone) for m in c.queue if m["name"] == "ended"]
    assert len(notices) == 2 and all(a.get("error") for a in said), (notices, said)
    data = data_of(hub, g["id"]) + [ids["Hero"], "x", "z", "on", "name", "U+0007", "command", "sync", "type",
                                    '{"type": ..., ...}', '{"since"?}', "'{\"since\"?}'"]
    texts = [a["error"] for a in said] + notices
    html = "".join(f"<p>{escape_text(t)}</p>" for t in texts)
    assert not untranslated(html, data), "\n".join(untranslated(html, data))


def escape_text(text: str) -> str:
    from markupsafe import escape

    return str(escape(text))


def test_the_gm_replay_view_is_in_the_pseudo_locale(app):
    """The GM replaying a past moment of a fight: the banner and every part of the page drawn from then (the
    `replay` message), in the GM's device's language."""
    hub = app.extensions["tacmap"]
    api, g, p, ids = ruins_with_foes(app, "savage_worlds")
    for _step, _answer in scripted_fight(api, g, p, ids):
        pass
    socketio = app.extensions["tacmap_socketio"]
    gm = socketio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]}, flask_test_client=pseudo_client(app))
    gm.get_received()
    at = hub.game(g["id"]).seq - 3
    ack = gm.emit("command", {"type": "replay", "at": at}, callback=True)
    assert ack["ok"] is True, ack
    shown = [m["args"][0] for m in gm.get_received() if m["name"] == "replay"]
    assert shown and shown[0]["at"] == at and shown[0]["html"] and "·]" in shown[0]["banner"], shown
    data = data_of(hub, g["id"])
    html = f"<p>{escape_text(shown[0]['banner'])}</p>" + shown[0]["html"]
    problems = untranslated(html, data)
    assert not problems, "\n".join(problems)
