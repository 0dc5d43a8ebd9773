"""Room mode's words in the reader's language (issue #37, the "room" domain: translations/room.cfg, room.pot,
<lang>/LC_MESSAGES/room.po). Every page of the room (organiser page with its list, notices and refusals, sheets,
PIN page, setup, login, reset confirm, a closed table and a reset table's old game) is rendered through Flask-Babel
with the compiled catalog: in a marking catalog every text a reader sees comes from it (data aside), and in German
no English is left. The catalogs are complete in de/fr/es with the same placeholders and markup, and match what
the sources mark."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask_babel import Babel

from tests.helpers import new_game
from webapp import create_app
from webapp.web.room import roomwords
from webapp.web.room.room import setup_link
from webapp.web.room.roomwords import console_lines, forgotten_password_line

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "translations"
LANGS = ("de", "fr", "es")
MARK = "eo"  # the marking catalog's locale (a name Babel knows): every message as ⟦its English⟧
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]")
TAG = re.compile(r"</?[a-z][^<>]*>")
#: the same word in a language as in English: German's System, French tables and rounds (French play says round)
SAME_WORDS = ("System", "PIN", "Table", "Tables", "round %(round)s")
COMMAND = re.compile(r"`[^`]*`|tacmap serve --room|--room")  # a command typed as it is, in every language


def catalog(lang: str) -> Catalog:
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "room.po").open("rb") as f:
        return read_po(f, locale=lang, domain="room")


def template_catalog() -> Catalog:
    with (TRANSLATIONS / "room.pot").open("rb") as f:
        return read_po(f, domain="room")


def compile_to(folder: Path) -> Path:
    """The room's .po files compiled, and the marking catalog made from the .pot, under ``folder``."""
    for lang in LANGS:
        out = folder / lang / "LC_MESSAGES" / "room.mo"
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("wb") as f:
            write_mo(f, catalog(lang))
    mark = Catalog(locale=MARK, domain="room")
    for msg in template_catalog():
        if msg.id:
            mark.add(msg.id, tuple(f"⟦{i}⟧" for i in msg.id) if msg.pluralizable else f"⟦{msg.id}⟧")
    out = folder / MARK / "LC_MESSAGES" / "room.mo"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        write_mo(f, mark)
    return folder


@pytest.fixture
def speaking(tmp_path):
    """An app in room mode with Flask-Babel set up on the room's compiled catalog; ``speaking.lang`` chooses the
    language of the next requests."""
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "test", "DEMO": False,
                      "ROOM": True, "BABEL_TRANSLATION_DIRECTORIES": str(compile_to(tmp_path / "mo")),
                      "BABEL_DOMAIN": "room"})
    state = {"lang": "en"}
    Babel(app, locale_selector=lambda: state["lang"])
    app.lang = state
    return app


class Visible(HTMLParser):
    """The text a reader sees or hears: text nodes (not scripts, styles or the QR codes' drawings) and the
    labelling attributes, a visible input's value. A part marked ``translate="no"`` is left out whole (the
    language chooser's own names, once the app has one: each language named in itself)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.skip = 0  # depth inside a left-out element

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.skip or tag in ("script", "style", "svg") or a.get("translate") == "no":
            if tag not in self.VOID:
                self.skip += 1
            return
        for name in ("aria-label", "placeholder", "title", "alt"):
            if a.get(name):
                self.texts.append(a[name])
        if tag == "input" and a.get("type") not in ("hidden", "password", "checkbox") and a.get("value"):
            self.texts.append(a["value"])

    def handle_endtag(self, tag):
        if self.skip and tag not in self.VOID:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip and data.strip():
            self.texts.append(data)


def visible(html: str) -> list[str]:
    parser = Visible()
    parser.feed(html)
    return parser.texts


def unmarked(html: str, data: list[str]) -> list[str]:
    """What is left of a page in the marking catalog once every ⟦message⟧ (innermost first: a message may hold
    another as a parameter) and the data are taken out: text not from the catalog."""
    previous = None
    while previous != html:
        previous, html = html, re.sub(r"⟦[^⟦⟧]*⟧", "", html)
    left = []
    for text in visible(html):
        for value in sorted(data, key=len, reverse=True):
            text = text.replace(value, "")
        if re.search(r"[A-Za-z]", text):
            left.append(text.strip())
    return left


def english_only_words() -> set[str]:
    """Words of the room's English messages that none of its German texts use (PIN, Slot, Lobby are German too)."""
    de = catalog("de")
    english, german = set(), set()
    for msg in de:
        if not msg.id:
            continue
        ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
        strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
        for text, into in [(i, english) for i in ids] + [(s, german) for s in strs]:
            text = COMMAND.sub("", PLACEHOLDER.sub("", TAG.sub("", text)))
            into.update(w.lower() for w in re.findall(r"[A-Za-z]{2,}", text))
    return english - german


def every_room_page(app, template_name="Xyzzy"):
    """Log in as the organiser, make two tables (one with a player, then reset, leaving a past slot), and return
    {name: html} of every room page, each with a notice or refusal where the page shows one. Data used: the
    names below, pins, codes, links, times."""
    hub = app.extensions["tacmap"]
    pages = {}
    c = app.test_client()
    pages["login, no password yet"] = c.get("/room").get_data(as_text=True)
    token = setup_link(app, "http://localhost").split("token=")[1]
    pages["setup"] = c.get(f"/room/setup?token={token}").get_data(as_text=True)
    pages["setup, passwords differ"] = c.post("/room/setup", data={"token": token, "password": "lantern-42",
                                                                   "confirm": "other-one"}).get_data(as_text=True)
    pages["setup, wrong link"] = c.get("/room/setup?token=nope").get_data(as_text=True)
    assert c.post("/room/setup", data={"token": token, "password": "lantern-42", "confirm": "lantern-42"}).status_code == 302
    stranger = app.test_client()
    pages["login"] = stranger.get("/room").get_data(as_text=True)
    pages["login, wrong password"] = stranger.post("/room/login", data={"password": "nope-nope"}).get_data(as_text=True)
    pages["organiser page, no template"] = c.get("/room").get_data(as_text=True)
    g = new_game(c, "plain_grid", name=template_name)
    pages["make, bad count"] = c.post("/room/tables", data={"template": g["id"], "count": "99", "prefix": "Qux"}).get_data(as_text=True)
    pages["make, markup in a name"] = c.post("/room/tables", data={"template": g["id"], "count": "1", "prefix": "<b>"}).get_data(as_text=True)
    assert c.post("/room/tables", data={"template": g["id"], "count": "2", "prefix": "Qux", "gm_name": "Sam"}).status_code == 302
    pages["organiser page, tables made"] = c.get("/room").get_data(as_text=True)
    t1, t2 = hub.store.room_tables()
    phone = app.test_client()
    assert phone.post("/join", data={"code": t1["join_code"], "name": "Pip"}).status_code == 302
    old_game = t1["current_game"]
    pages["reset confirm, a player seated"] = c.get(f"/room/tables/{t1['id']}/reset").get_data(as_text=True)
    pages["reset confirm, nobody"] = c.get(f"/room/tables/{t2['id']}/reset").get_data(as_text=True)
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 302
    pages["organiser page, after a reset (a past slot)"] = c.get("/room").get_data(as_text=True)
    assert c.post(f"/room/tables/{t2['id']}/pin").status_code == 302
    pages["organiser page, new PIN"] = c.get("/room").get_data(as_text=True)
    pages["table list"] = c.get("/room/tables").get_data(as_text=True)
    pages["sheets"] = c.get("/room/sheets").get_data(as_text=True)
    pages["reset table's old game"] = phone.get(f"/games/{old_game}/play").get_data(as_text=True)
    volunteer = app.test_client()
    pages["PIN page"] = volunteer.get("/pin").get_data(as_text=True)
    pages["PIN page, wrong PIN"] = volunteer.post("/pin", data={"pin": "000000" if t2["pin"] != "000000" else "111111"}).get_data(as_text=True)
    assert c.post("/room/close").status_code == 302
    pages["organiser page, room closed"] = c.get("/room").get_data(as_text=True)
    pages["closed table"] = app.test_client().post("/join", data={"code": t2["join_code"], "name": "Late"}).get_data(as_text=True)
    t1, t2 = hub.store.room_tables()
    data = ["tacmap serve --room", template_name, "Qux 1", "Qux 2", "Qux", "Sam", "Pip", "plain_grid",
            "Plain grid (no rules, tokens only)",  # a rule system's name: the rules' own (not the room's catalog)
            "tacmap", "lantern-42", "<b>", "Ctrl+P"]
    for t in (t1, t2):
        data += [t["pin"], t["join_code"]]
    data += re.findall(r"https?://\S+?(?=[\s<\"])", "\n".join(pages.values()))
    data += re.findall(r"\b\d\d:\d\d\b", pages["table list"])
    return pages, data


def test_every_text_of_the_room_pages_comes_from_the_catalog(speaking):
    speaking.lang["lang"] = MARK
    pages, data = every_room_page(speaking)
    assert len(pages) == 21
    for name, html in pages.items():
        assert "⟦" in html, name
        assert unmarked(html, data) == [], f"{name}: text not from the catalog"


def test_the_room_pages_in_german_have_no_english_left(speaking):
    speaking.lang["lang"] = "de"
    pages, data = every_room_page(speaking, template_name="Xyzzy")
    english = english_only_words()
    assert {"table", "the", "room", "organiser", "reset"} <= english  # the check can find English
    for name, html in pages.items():
        found = set()
        for text in visible(html):
            for value in sorted(data, key=len, reverse=True):
                text = text.replace(value, "")
            found |= {w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)} & english
        assert not found, f"{name}: English left: {sorted(found)}"
    # and what it says is the catalog's German (the GM is the Spielleitung: SL)
    assert "2 Tische angelegt: Qux 1, Qux 2." in pages["organiser page, tables made"]
    assert "Jetzt am Tisch: <strong>Pip</strong>" in pages["reset confirm, a player seated"]
    assert "SL-PIN" in pages["sheets"] and "SL: Sam" in pages["sheets"]
    assert "Der Name der Tische darf kein &lt; oder &gt; enthalten" in pages["make, markup in a name"]
    assert "Lege 1 bis 40 Tische auf einmal an." in pages["make, bad count"]
    assert "Die Orga hat diesen Raum geschlossen" in pages["closed table"]


def test_english_pages_read_as_before_with_babel_set_up(speaking):
    speaking.lang["lang"] = "en"
    pages, _data = every_room_page(speaking)
    assert "Made 2 tables: Qux 1, Qux 2." in pages["organiser page, tables made"]
    assert "Seated now: <strong>Pip</strong>" in pages["reset confirm, a player seated"]
    assert "⟦" not in "".join(pages.values())


def test_names_with_markup_stay_text_in_a_translated_sentence(speaking):
    """A table's name is a parameter of a translated message: escaped, never markup (the room refuses < and >
    in names it makes, but a game renamed elsewhere may hold an ampersand or quotes)."""
    speaking.lang["lang"] = "fr"
    pages, _data = every_room_page(speaking, template_name='Tom & "Jerry"')
    html = pages["organiser page, tables made"]
    assert "d'après Tom &amp; &#34;Jerry&#34;" in html
    assert '%(' not in "".join(pages.values())


def test_plurals_follow_the_language(speaking):
    hub = speaking.extensions["tacmap"]
    speaking.lang["lang"] = "fr"
    c = speaking.test_client()
    token = setup_link(speaking, "http://localhost").split("token=")[1]
    c.post("/room/setup", data={"token": token, "password": "lantern-42", "confirm": "lantern-42"})
    g = c.post("/api/games", json={"name": "Xyzzy", "system": "plain_grid"}).json
    c.post("/room/tables", data={"template": g["id"], "count": "1", "prefix": "Qux"})
    assert "1 table créée : Qux 1." in c.get("/room").get_data(as_text=True)
    c.post("/room/tables", data={"template": g["id"], "count": "2", "prefix": "Qux"})
    assert "2 tables créées : Qux 2, Qux 3." in c.get("/room").get_data(as_text=True)
    assert len(hub.store.room_tables()) == 3


@pytest.mark.parametrize("lang", LANGS)
def test_the_catalog_is_complete_with_the_same_placeholders_and_markup(lang):
    pot_ids = {m.id for m in template_catalog() if m.id}
    cat = catalog(lang)
    assert not cat.fuzzy, "the header is not fuzzy"
    ids = {m.id for m in cat if m.id}
    assert ids == pot_ids, f"missing {pot_ids - ids}, obsolete {ids - pot_ids}"
    for msg in cat:
        if not msg.id:
            continue
        assert "fuzzy" not in msg.flags, msg.id
        ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
        strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
        assert all(s.strip() for s in strs), f"empty: {msg.id!r}"
        assert len(strs) == cat.num_plurals if msg.pluralizable else len(strs) == 1
        want = set(PLACEHOLDER.findall(ids[-1]))
        for s in strs:
            assert set(PLACEHOLDER.findall(s)) == want, f"placeholders of {msg.id!r}: {s!r}"
            # the same markup: tags with their attributes (a link's href, a class), in any order
            assert sorted(TAG.findall(s)) == sorted(TAG.findall(ids[0])), f"markup of {msg.id!r}: {s!r}"
            assert s != ids[0] or not re.search(r"[a-z]{3,}", PLACEHOLDER.sub("", ids[0])) or msg.id in SAME_WORDS, \
                f"untranslated: {msg.id!r}"


def test_the_template_matches_what_the_sources_mark(tmp_path):
    """translations/room.pot is what `pybabel extract -F translations/room.cfg` finds now (nothing marked is
    missing from the catalogs, nothing in them is gone from the pages)."""
    out = tmp_path / "room.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "translations/room.cfg",
                    "-o", str(out), "--no-wrap", "."], cwd=ROOT, check=True, capture_output=True)
    with out.open("rb") as f:
        fresh = {m.id for m in read_po(f) if m.id}
    assert fresh == {m.id for m in template_catalog() if m.id}


def test_the_console_lines_speak_the_system_language(tmp_path, monkeypatch):
    compiled = compile_to(tmp_path / "mo")
    monkeypatch.setattr(roomwords, "TRANSLATIONS", compiled)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    lines = console_lines("http://192.168.1.5:5000", "http://192.168.1.5:5000/room/setup?token=abc")
    assert lines == ["Modo sala: la página de la organización es http://192.168.1.5:5000/room, los DJ voluntarios "
                     "escriben su PIN en http://192.168.1.5:5000/pin",
                     "Fija la contraseña de la organización una sola vez, con este enlace (funciona una vez; no lo "
                     "muestres en las pantallas compartidas de la wifi): http://192.168.1.5:5000/room/setup?token=abc"]
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert forgotten_password_line("/room/setup?token=x").startswith("Das Orga-Passwort ist gelöscht")
    monkeypatch.setenv("LANG", "C")
    assert console_lines("http://h:1", None) == [
        "Room mode: the organiser's page is http://h:1/room, volunteer GMs type their PIN at http://h:1/pin"]
