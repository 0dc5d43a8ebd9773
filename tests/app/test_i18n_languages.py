"""Languages (issue #37): every domain's catalogs complete in German, French and Spanish; which language a
request gets (?lang=, the cookie, Accept-Language); the table screen in the GM's choice; the pseudo-locale; the
scripts' catalog; the console's language."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po

from webapp.web import i18n

ROOT = Path(__file__).resolve().parents[2]
T = ROOT / "translations"
LANGS = ("de", "fr", "es")


# --- the catalogs ------------------------------------------------------------------------------------------

def test_every_domain_is_wholly_translated_in_german_french_and_spanish():
    """babel's own reading of each .po: no message left out of the .pot's, none empty, none fuzzy."""
    domains = i18n.domains(T)
    assert "messages" in domains
    assert set(LANGS) <= set(i18n.languages(T))
    for domain in domains:
        with (T / f"{domain}.pot").open("rb") as f:
            wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
        assert wanted, domain
        for lang in LANGS:
            with (T / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
                cat = read_po(f, locale=lang)
            have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in cat if m.id}
            assert wanted - set(have) == set(), (lang, domain, "missing")
            gaps = [k for k, m in have.items() if m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                                       else (m.string,))]
            assert gaps == [], (lang, domain, gaps[:10])
            translated = sum(1 for k in wanted if have[k].string)
            assert translated / len(wanted) == 1.0, (lang, domain)


@pytest.mark.long
def test_scripts_i18n_check_passes_now_and_fails_on_any_gap(tmp_path):
    check = [sys.executable, str(ROOT / "scripts" / "i18n"), "check", "--dir"]
    assert subprocess.run(check + [str(T)], capture_output=True, text=True).returncode == 0
    for spoil in ("empty", "fuzzy", "placeholder", "missing"):
        folder = tmp_path / spoil
        shutil.copytree(T, folder, ignore=shutil.ignore_patterns("*.mo", "en_XA"))
        po = folder / "fr" / "LC_MESSAGES" / "messages.po"
        with po.open("rb") as f:
            cat = read_po(f, locale="fr")
        victim = next(m for m in cat if m.id == "Remove %(name)s from the map?")
        if spoil == "empty":
            victim.string = ""
        elif spoil == "fuzzy":
            victim.flags.add("fuzzy")
        elif spoil == "placeholder":
            victim.string = "Retirer %(nom)s de la carte ?"
        else:
            cat.delete(victim.id)
        with po.open("wb") as f:
            write_po(f, cat)
        done = subprocess.run(check + [str(folder)], capture_output=True, text=True)
        assert done.returncode == 1, spoil
        assert "Remove %(name)s from the map?" in done.stdout and "fr/messages" in done.stdout, done.stdout


def test_catalogs_compile_from_the_po_files_and_again_when_a_po_is_newer(tmp_path):
    source = tmp_path / "translations"
    shutil.copytree(T, source, ignore=shutil.ignore_patterns("*.mo", "en_XA"))
    written = i18n.compile_catalogs(source)
    names = {p.relative_to(source).as_posix() for p in written}
    assert {f"{lang}/LC_MESSAGES/messages.mo" for lang in LANGS + ("en_XA",)} <= names
    assert i18n.compile_catalogs(source) == []  # nothing newer: nothing written
    po = source / "de" / "LC_MESSAGES" / "messages.po"
    po.touch()
    mo = source / "de" / "LC_MESSAGES" / "messages.mo"
    import os

    os.utime(mo, (mo.stat().st_mtime - 10, mo.stat().st_mtime - 10))
    assert [p.relative_to(source).as_posix() for p in i18n.compile_catalogs(source)] == ["de/LC_MESSAGES/messages.mo"]


def test_the_pseudo_locale_is_accented_longer_bracketed_and_keeps_placeholders_and_tags():
    for text in ("Remove %(name)s from the map?", "Back, sending {n} change…", "<strong>%(a)s</strong> attacks",
                 "%(percent)s%% of sight lines blocked"):
        out = i18n.pseudo(text)
        assert out.startswith("[") and out.endswith("]") and len(out) >= len(text) * 1.35
        for kept in re.findall(r"%\(\w+\)s|\{\w+\}|<[^>]+>|%%", text):
            assert kept in out
        assert re.search(r"[áéîöü]", out)
    assert i18n.pseudo(" (hidden from players)").startswith(" [")  # its leading space stays outside
    # each value a message says is marked (the pseudo-locale test checks it on its own), not one inside a tag
    assert i18n.pseudo("%(n)s of {total}: %(who)s").count("⟦") == 3
    assert '<a href="%(url)s">⟦%(name)s⟧</a>' in i18n.pseudo('<a href="%(url)s">%(name)s</a> left')


# --- which language a request gets ----------------------------------------------------------------------

def lang_of(html: str) -> str:
    return re.search(r'<html lang="([^"]+)"', html).group(1)


def test_lang_in_the_address_sets_a_year_long_cookie_and_wins_over_the_browser(client):
    r = client.get("/?lang=de", headers={"Accept-Language": "es"})
    assert lang_of(r.get_data(as_text=True)) == "de" and "Einem Spiel beitreten" in r.get_data(as_text=True)
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("lang=de;") and "Max-Age=31536000" in cookie
    # the device remembers it: the next page, without ?lang=, whatever the browser prefers
    page = client.get("/help/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert lang_of(page) == "de"


def test_accept_language_picks_the_best_of_ours_else_english(client):
    assert lang_of(client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}).get_data(as_text=True)) == "es"
    assert lang_of(client.get("/", headers={"Accept-Language": "it,fr;q=0.7,de;q=0.6"}).get_data(as_text=True)) == "fr"
    assert lang_of(client.get("/", headers={"Accept-Language": "ja,zh"}).get_data(as_text=True)) == "en"
    assert lang_of(client.get("/").get_data(as_text=True)) == "en"
    # the pseudo-locale only when named, never as a fallback for English
    assert lang_of(client.get("/", headers={"Accept-Language": "en-GB,en;q=0.8"}).get_data(as_text=True)) == "en"
    assert lang_of(client.get("/", headers={"Accept-Language": "en-XA"}).get_data(as_text=True)) == "en-XA"


def test_an_unknown_lang_is_ignored_and_sets_no_cookie(client):
    r = client.get("/?lang=xx", headers={"Accept-Language": "fr"})
    assert lang_of(r.get_data(as_text=True)) == "fr" and "Set-Cookie" not in r.headers or \
        "lang=" not in r.headers.get("Set-Cookie", "")


def test_every_page_carries_the_language_chooser(client, demo):
    client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    for url in ("/", "/help/", f"/games/{demo.id}/gm", f"/join?code={demo.join_code}",
                f"/games/{demo.id}/screen?key={demo.screen_key}", f"/games/{demo.id}/recap"):
        page = client.get(url, follow_redirects=True).get_data(as_text=True)
        chooser = re.search(r'<nav class="language" aria-label="[^"]+" translate="no">(.*?)</nav>', page, re.S)
        assert chooser, url
        assert all(f'lang={code}' in chooser.group(1) for code in ("en", "de", "fr", "es")), url


def test_a_refusal_to_a_form_is_said_in_the_readers_language(app, client, demo):
    r = client.post("/join?lang=de", data={"code": "ZZZZZZ", "name": "Mira"})
    assert r.status_code == 404 and "Kein Spiel hat diesen Beitrittscode." in r.get_data(as_text=True)
    r = app.test_client().get("/games/nosuch/gm", headers={"Accept-Language": "es"})
    assert r.status_code == 404 and "Esa partida no existe." in r.get_data(as_text=True)


def test_the_scripts_catalog_holds_their_words_in_the_language(client):
    r = client.get("/i18n/fr.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    body = r.get_data(as_text=True)
    assert body.startswith("window.TACMAP_I18N = ")
    assert '"Place on the map": "Placer sur la carte"' in body and '"decimal": ","' in body
    assert "Back, sending {n} changes…" not in body or "De retour, envoi de {n} modifications…" in body
    assert client.get("/i18n/xx.js").status_code == 404
    assert "lang=" not in client.get("/i18n/de.js?lang=de").headers.get("Set-Cookie", "")


# --- the table screen: the GM's choice ---------------------------------------------------------------------

def test_the_gm_sets_the_table_screens_language_and_the_screen_page_speaks_it(app, hub, demo):
    from webapp.game.tableside import screenview
    from webapp.game.core.model import GM, Rejected

    gm, screen = app.test_client(), app.test_client()
    gm.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    page = screen.get(f"/games/{demo.id}/screen?key={demo.screen_key}", follow_redirects=True,
                      headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert lang_of(page) == "de"  # no choice made: the screen device's own language
    assert screenview.screen_language(hub.game(demo.id)) is None
    r = gm.post(f"/games/{demo.id}/commands", data={"type": "set_screen_view", "language": "fr"})
    assert r.status_code in (200, 204), r.get_data(as_text=True)
    assert screenview.screen_language(hub.game(demo.id)) == "fr"
    page = screen.get(f"/games/{demo.id}/screen", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert lang_of(page) == "fr"
    # the GM's own page stays in the GM's language, and its panel shows the choice
    gm_page = gm.get(f"/games/{demo.id}/gm").get_data(as_text=True)
    assert lang_of(gm_page) == "en" and re.search(r'<option value="fr"[^>]*selected', gm_page)
    with pytest.raises(Rejected):  # only the GM steers the screen; an unknown language is refused
        from webapp.game.core.model import SCREEN

        hub.execute(demo.id, SCREEN, {"type": "set_screen_view", "language": "de"})
    seq = hub.game(demo.id).seq
    with pytest.raises(Exception):
        hub.execute(demo.id, GM, {"type": "set_screen_view", "language": "klingon"})
    assert hub.game(demo.id).seq == seq and screenview.screen_language(hub.game(demo.id)) == "fr"
    hub.execute(demo.id, GM, {"type": "set_screen_view", "language": None})  # back to the device's own
    assert screenview.screen_language(hub.game(demo.id)) is None


# --- the console -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("environ, expected", [
    ({"LANG": "de_DE.UTF-8"}, "de"), ({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}, "fr"),
    ({"LANG": "es_MX"}, "es"), ({"LANG": "C.UTF-8"}, "en"), ({"LANG": "it_IT.UTF-8"}, "en"),
    ({"LANGUAGE": "it:es", "LANG": "it_IT.UTF-8"}, "es"), ({"LC_MESSAGES": "de_AT.UTF-8"}, "de"),
])
def test_the_console_speaks_the_systems_language_where_a_catalog_has_it(environ, expected):
    assert i18n.system_language(environ) == expected


def test_tacmap_serve_prints_its_lines_in_german_under_a_german_locale(tmp_path):
    code = ("import sys; sys.argv[1:] = []\n"
            "from webapp import cli\n"
            "print(cli._('Players join at the addresses above with the game\\'s join code.'))\n"
            "print(cli._('tacmap is serving (data in %(folder)s)', folder='/x'))\n")
    env = {"LANG": "de_DE.UTF-8", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Spieler treten unter den Adressen oben mit dem Beitrittscode des Spiels bei.",
                                       "tacmap läuft (Daten in /x)"]


def test_a_games_refusal_reaches_the_sender_in_its_language_by_form_and_by_socket(app, demo):
    gm = app.test_client()
    gm.get(f"/games/{demo.id}/gm?key={demo.gm_key}&lang=de")
    r = gm.post(f"/games/{demo.id}/commands", data={"type": "end_combat"})
    assert r.status_code == 422 and r.get_data(as_text=True) == "es läuft kein Kampf"
    r = gm.post(f"/games/{demo.id}/commands", data={"type": "end_combat"}, headers={"HX-Request": "true"})
    assert "es l\\u00e4uft kein Kampf" in r.headers["HX-Trigger"] or "es läuft kein Kampf" in r.headers["HX-Trigger"]
    socketio = app.extensions["tacmap_socketio"]
    french = app.test_client()
    french.get("/?lang=fr")
    link = socketio.test_client(app, flask_test_client=french, auth={"game": demo.id, "token": demo.gm_key})
    ack = link.emit("command", {"type": "end_combat"}, callback=True)
    assert ack == {"ok": False, "error": "aucun combat n'est en cours"}
    # a script that names no language hears English
    bot = socketio.test_client(app, auth={"game": demo.id, "token": demo.gm_key})
    assert bot.emit("command", {"type": "end_combat"}, callback=True)["error"] == "there is no fight on"


@pytest.mark.long
def test_every_domains_template_is_up_to_date_with_its_sources(tmp_path):
    """What the sources mark now (scripts/i18n's extraction, every domain's .cfg) is what the .pot holds:
    a text wrapped without `scripts/i18n update` would reach no translator."""
    from babel.messages.frontend import CommandLineInterface

    sys.path.insert(0, str(ROOT / "scripts"))
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("i18n_script", str(ROOT / "scripts" / "i18n"))
    spec = importlib.util.spec_from_loader("i18n_script", loader)
    script = importlib.util.module_from_spec(spec)
    loader.exec_module(script)
    keys = [arg for k in script.KEYWORDS + i18n.JS_KEYWORDS for arg in ("-k", k)]
    for domain in i18n.domains(T):
        out = tmp_path / f"{domain}.pot"
        CommandLineInterface().run(["pybabel", "-q", "extract", "-F", str(T / f"{domain}.cfg"), "-o", str(out),
                                    "--no-default-keywords", *keys, str(ROOT)])
        with out.open("rb") as f:
            now = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id}
        with (T / f"{domain}.pot").open("rb") as f:
            kept = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id}
        assert now - kept == set(), f"{domain}: run scripts/i18n update (new: {sorted(now - kept)[:5]})"
        assert kept - now == set(), f"{domain}: run scripts/i18n update (gone: {sorted(kept - now)[:5]})"


def test_every_word_the_scripts_say_is_in_their_catalog(client):
    """Each t("...") / tn("...") of static/js is served in /i18n/<lang>.js, pseudo-translated in en_XA."""
    import json

    said = set()
    for js in (ROOT / "static" / "js").glob("*.js"):
        if js.name == "i18n.js":  # t() itself, with examples in its comment
            continue
        # "a " + "b" is one message, as babel's extractor joins it
        text = re.sub(r'"\s*\+\s*"', "", js.read_text())
        said |= set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', text))
        said |= set(re.findall(r'\btn\("((?:[^"\\]|\\.)*)"', text))
    said = {json.loads(f'"{s}"') for s in said}
    assert len(said) > 40
    body = client.get("/i18n/en_XA.js").get_data(as_text=True)
    catalog = json.loads(body[len("window.TACMAP_I18N = "):].rstrip().rstrip(";"))
    served = {k: v for k, v in catalog["texts"].items()} | {k: v[0] for k, v in catalog["plurals"].items()}
    assert said - set(served) == set()
    assert all(served[s].startswith("[") and served[s].endswith("]") for s in said)
