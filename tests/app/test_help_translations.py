"""The help pages and the character sheets in German, French and Spanish: the "help" domain
(translations/<lang>/LC_MESSAGES/help.po, extracted by translations/help.cfg).

Until the app installs Flask-Babel with every domain, these tests put gettext into the app's Jinja
environment themselves: a catalog compiled from the .po into a temporary folder (Babel's
``support.Translations``), or a marking gettext that wraps each string it is asked for, so that any
text a page shows without asking a catalog stands out."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from flask import render_template
from flask_babel import Babel

import rules
from webapp.web import helptext
from webapp.web.sheet import sheetform, sheetreading, sheetviews

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("de", "fr", "es")
OPEN, CLOSE = "\u27e6", "\u27e7"  # ⟦ ⟧: what the marking gettext wraps around every string it hands out

#: Words a language writes as English does, so the same text node in both renderings is no leftover:
#: game terms kept as the publisher keeps them (docs/TRANSLATING.md, "help"), abbreviations, loan words.
SAME = {
    "*": {"tacmap", "AP", "WR", "HP", "FP", "SM", "DR", "Acc", "RoF", "Rcl", "Bulk", "STR", "AGI", "PER", "INT",
          "WP", "CHA", "SPD", "Ego", "Mayhem", "Fate", "Stamina", "Ticks", "Soak (GRIT×5)",
          "Last Stand (NERVE×5)", "Tesseris (Adaptable Dice System)", "Bennies", "Soak", "Two-Fisted"},
    "de": {"Initiative", "Initiative (REFLEX×5)", "Name", "Joker", "Sprint"},
    "fr": {"Initiative", "Initiative (REFLEX×5)", "Combat", "Extra", "Mode", "Notes", "Joker", "Parade", "Fatigue",
           "Vigueur", "Surprise", "Actions", "Badges", "initiative", "round", "rounds"},
    "es": {"Extra", "Joker", "Vulnerable"},
}


def _po(lang: str):
    with open(ROOT / "translations" / lang / "LC_MESSAGES" / "help.po", "rb") as f:
        return read_po(f, locale=lang)


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory):
    """Each language's help.po compiled as the app will load it (<dir>/<lang>/LC_MESSAGES/help.mo)."""
    out = tmp_path_factory.mktemp("translations")
    for lang in LANGS:
        (out / lang / "LC_MESSAGES").mkdir(parents=True)
        with open(out / lang / "LC_MESSAGES" / "help.mo", "wb") as f:
            write_mo(f, _po(lang))
    return out


@pytest.fixture(scope="module")
def catalogs(catalog_dir) -> dict[str, Translations]:
    loaded = {}
    for lang in LANGS:
        loaded[lang] = Translations.load(str(catalog_dir), [lang], "help")
        assert isinstance(loaded[lang], Translations), lang  # a real catalog, not the null fallback
    return loaded


def _markup(text: str) -> tuple:
    """What a translation must keep of its msgid: the tags, the %(name)s placeholders and the %% signs."""
    return (sorted(re.findall(r"</?[a-z0-9]+\b", text)), sorted(re.findall(r"%\(\w+\)s", text)), text.count("%%"))


def _extracted() -> set:
    with open(ROOT / "translations" / "help.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    return {msg for _, _, msg, _, _ in extract_from_dir(str(ROOT), method_map, options_map)}


def test_the_catalogs_hold_exactly_the_help_pages_and_sheets_strings():
    wanted = _extracted()
    with open(ROOT / "translations" / "help.pot", "rb") as f:
        assert {m.id for m in read_po(f) if m.id} == wanted, "translations/help.pot is stale: extract again"
    for lang in LANGS:
        ids = {m.id for m in _po(lang) if m.id}
        assert not wanted - ids, f"{lang}: missing {sorted(wanted - ids)[:3]}"
        assert not ids - wanted, f"{lang}: obsolete {sorted(ids - wanted)[:3]}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_is_translated_not_fuzzy_and_keeps_the_markup_and_placeholders(lang):
    catalog = _po(lang)
    assert not catalog.fuzzy
    count = 0
    for m in catalog:
        if not m.id:
            continue
        count += 1
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(s.strip() for s in strings), f"{lang}: untranslated {ids[0][:60]!r}"
        assert "fuzzy" not in m.flags, f"{lang}: fuzzy {ids[0][:60]!r}"
        for s in strings:
            assert _markup(s) == _markup(ids[0]), f"{lang}: {ids[0][:60]!r} -> {s[:60]!r}"
    assert count > 350


class _Text(HTMLParser):
    """The text nodes a reader sees in a page's help article (and its title), or in a sheet; without <code>
    (setting names and values, typed as the app reads them) and, on a help page, the settings table's
    cells (each setting's name and default value, straight from the rules)."""

    def __init__(self, root: str | None):
        super().__init__(convert_charrefs=True)
        self.root = root
        self.depth = 0 if root else 1  # inside the root element (any depth > 0)
        self.code = 0
        self.in_title = False
        self.nodes: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self.depth:
            self.depth += tag not in ("br", "img", "input", "meta", "link", "hr")
        elif self.root and tag == "article" and self.root in classes:
            self.depth = 1
        self.code += tag == "code" or (tag == "td" and bool(self.root))
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        if self.depth and self.root:
            self.depth -= 1
        self.code -= tag == "code" or (tag == "td" and bool(self.root))
        self.in_title = False

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and (self.depth or self.in_title) and not self.code:
            self.nodes.append(text)


def _nodes(html: str, root: str | None = "help") -> list[str]:
    parser = _Text(root)
    parser.feed(html)
    return parser.nodes


def _install(app, translations) -> None:
    app.jinja_env.install_gettext_translations(translations, newstyle=True)  # as Flask-Babel does


class _Marking:
    """A gettext that wraps everything it translates in ⟦ ⟧: a page's text outside them came from no catalog."""

    def gettext(self, s):
        return OPEN + s + CLOSE

    def ngettext(self, s, p, n):
        return OPEN + (s if n == 1 else p) + CLOSE

    def pgettext(self, c, s):
        return self.gettext(s)

    def npgettext(self, c, s, p, n):
        return self.ngettext(s, p, n)


def _outside_catalog(html: str, root: str | None = "help") -> list[str]:
    """The text nodes that are not inside a ⟦ ⟧ pair (tags inside a pair included)."""
    stripped, before = html, None
    while stripped != before:  # innermost pairs first: a translated text may hold another (a reading in a sentence)
        before, stripped = stripped, re.sub(OPEN + "[^" + OPEN + CLOSE + "]*" + CLOSE, " ", stripped)
    assert OPEN not in stripped and CLOSE not in stripped
    return [t for t in _nodes(stripped, root) if re.search(r"[A-Za-z]{2}", t)]


def _data_words(*values) -> set:
    """Every text the rules or a sheet hand the page (names, keys, readings), as the templates show it."""
    out: set = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k), walk(x)
        elif isinstance(v, (list, tuple, set, frozenset)):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            for s in (v, v.capitalize(), v.title(), v.upper(), v.replace("_", " "), v.replace("_", " ").title()):
                out.add(" ".join(s.split()))
                out.add(" ".join(s.split()).strip(_PUNCT))
    for v in values:
        walk(v)
    return out


_PUNCT = " :;,.()·–-"


def _is_data(text: str, data: set) -> bool:
    """Whether ``text`` is one of ``data`` with the punctuation a template puts around it (": ", " ·", "()")."""
    return text in data or text.strip(_PUNCT) in data


def _from_data(text: str, data: set) -> bool:
    """Whether ``text`` is data, or made of data joined by punctuation and numbers ("sw+1 cut", "Light (−1)")."""
    def parts(pattern):
        return [p for p in re.split(pattern, text) if re.search(r"[A-Za-z]", p)]
    return _is_data(text, data) or any(all(_is_data(p, data) for p in parts(pattern))
                                       for pattern in (r"[,:;/()·\s]", r"[,:;/()·\s+]"))


def _help_data(system) -> set:
    """What a help page shows as data rather than as text: the system's name and id (the rules' readings and
    dark vision are text: they come from the catalog too, webapp/web/helptext.py)."""
    return _data_words(system.name, system.id)


SYSTEMS = [s.id for s in rules.systems()]


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_text_of_a_help_page_comes_from_the_catalog(app, client, system_id):
    system = rules.get(system_id)
    _install(app, _Marking())
    page = client.get(f"/help/{system_id}").get_data(as_text=True)
    assert OPEN in page
    left = [t for t in _outside_catalog(page) if not _is_data(t, _help_data(system))]
    assert not left, left[:5]
    index = client.get("/help/").get_data(as_text=True)
    names = _data_words([(s.name, s.id) for s in rules.systems()])
    assert not [t for t in _outside_catalog(index) if not _is_data(t, names)]


def _sheets(app):
    """Each system's sheet with its sample character, filled so that every optional line shows."""
    token = SimpleNamespace(id="t1", name="Ann")
    for system in rules.systems():
        sheet = system.default_sheet() if hasattr(system, "default_sheet") else {}
        if system.id == "plain_grid":
            yield system, token, {}, {}
            continue
        if system.id == "savage_worlds":
            sheet["weapons"]["Shotgun"] = {"damage": "3d6", "range": "12/24/48", "shotgun": True, "reach": 1,
                                           "improvised": "light"}
            sheet["hindrances"] = ["Loyal"]
        if system.id == "gurps_lite":
            sheet["traits"] = {"combat_reflexes": True, "trained_by_a_master": True, "weapon_master": True}
            sheet["crippled"], sheet["conditions"], sheet["shock"] = ["left arm"], ["prone"], 2
        if system.id == "atomic_tomorrow":
            sheet["epithets"] = ["Ace pilot"]
            sheet["weapons"][0]["area"] = True
        if system.id == "tesseris_ads":
            sheet["statuses"] = [{"name": "Bleeding", "rounds": 2}, {"name": "Dazed", "rounds": 1}]
            sheet["feats"] = ["Quick Draw"]
        with app.test_request_context():
            yield system, token, sheet, system.derived(sheet)


def _render_sheet(system, token, sheet, derived) -> str:
    return render_template(system.sheet_template, token=token, sheet=sheet, derived=derived, system=system)


def test_every_text_of_a_sheet_comes_from_the_catalog_or_the_sheet(app):
    _install(app, _Marking())
    for system, token, sheet, derived in _sheets(app):
        with app.test_request_context():
            html = _render_sheet(system, token, sheet, derived)
            badges = [b["label"] for b in system.badges(sheet)] if hasattr(system, "badges") and sheet else []
        assert OPEN in html or system.id == "plain_grid"
        data = _data_words(token.name, sheet, derived, badges)
        left = [t for t in _outside_catalog(html, None) if not _from_data(t, data)]
        assert not left, (system.id, left[:5])


@pytest.mark.parametrize("lang", LANGS)
def test_help_pages_and_sheets_speak_the_language(app, client, catalogs, lang):
    same = SAME["*"] | SAME[lang]
    english = {}
    for system_id in SYSTEMS:
        english[system_id] = _nodes(client.get(f"/help/{system_id}").get_data(as_text=True))
    english_sheets = {}
    for system, token, sheet, derived in _sheets(app):
        with app.test_request_context():
            english_sheets[system.id] = (_nodes(_render_sheet(system, token, sheet, derived), None),
                                         (system, token, sheet, derived))
    _install(app, catalogs[lang])
    for system_id in SYSTEMS:
        system = rules.get(system_id)
        translated = _nodes(client.get(f"/help/{system_id}").get_data(as_text=True))
        data = _help_data(system)
        left = [t for t in set(english[system_id]) & set(translated)
                if t not in same and not _is_data(t, data) and re.search(r"[A-Za-z]{3}", t)]
        assert not left, (lang, system_id, left[:5])
        assert len(translated) >= len(english[system_id]) * 0.9  # the same page, not an empty one
    for system_id, (nodes, args) in english_sheets.items():
        with app.test_request_context():
            translated = _nodes(_render_sheet(*args), None)
        system, token, sheet, derived = args
        data = _data_words(token.name, sheet, derived) | same
        left = [t for t in set(nodes) & set(translated) if not _from_data(t, data) and re.search(r"[A-Za-z]{3}", t)]
        assert not left, (lang, system_id, left[:5])


def test_a_german_help_page_uses_the_publishers_terms(app, client, catalogs):
    _install(app, catalogs["de"])
    page = client.get("/help/savage_worlds").get_data(as_text=True)
    for term in ("Angeschlagen", "Bennies", "Wildcard", "Parade", "Robustheit", "Steigerung", "Statisten"):
        assert term in page, term
    assert "Shaken" not in " ".join(_nodes(page))
    system = rules.get("savage_worlds")  # an Edge the rules know reads in German on the sheet, one typed as typed
    sheet = {**system.default_sheet(), "edges": ["Level Headed", "Brawny"]}
    with app.test_request_context():
        html = _render_sheet(system, SimpleNamespace(id="t1", name="Ann"), sheet, system.derived(sheet))
    assert "<dd>Kühler Kopf, Brawny</dd>" in html
    _install(app, catalogs["fr"])  # Black Book Éditions' terms: a Wild Card is a Joker, Shaken is Secoué
    page = client.get("/help/savage_worlds").get_data(as_text=True)
    for term in ("Secoué", "Allure", "Résistance", "Dé Joker", "Atouts", "Extras"):
        assert term in page, term
    _install(app, catalogs["es"])  # the Spanish edition's: Comodín, Benis, Aturdido, Dureza, Paso
    page = client.get("/help/savage_worlds").get_data(as_text=True)
    for term in ("Comodín", "Benis", "Aturdido", "Dureza", "Paso", "dado salvaje", "Ventajas"):
        assert term in page, term


def test_the_help_pages_read_as_before_in_english(client):
    """No catalog (the app as it is before Flask-Babel is set up, and English with it): the msgids are the
    text, so the pages read as they did."""
    page = client.get("/help/savage_worlds").get_data(as_text=True)
    assert "<h2>Bennies</h2>" in page and "<strong>Called Shot</strong> (Savage Worlds core rules)" in page
    assert "under 25 % none" in client.get("/help/atomic_tomorrow").get_data(as_text=True)
    assert "(setting <code translate=\"no\">critical_hit_no_defense</code>)" in client.get("/help/gurps_lite").get_data(as_text=True)
    # the rules' text, looked up in the catalog, is still text: escaped as before
    assert "Attack &amp; Defense" in client.get("/help/atomic_tomorrow").get_data(as_text=True)


def test_a_sheets_own_keys_stay_text_in_every_language(app, catalogs):
    system = rules.get("savage_worlds")
    sheet = system.default_sheet()
    sheet["skills"]["<b>x</b>&amp;"] = "d6"
    for translations in (None, catalogs["de"]):
        if translations is not None:
            _install(app, translations)
        with app.test_request_context():
            html = _render_sheet(system, SimpleNamespace(id="t1", name="Ann"), sheet, system.derived(sheet))
        assert "<dt>&lt;B&gt;x&lt;/b&gt;&amp;amp;</dt>" in html and "<b>x" not in html.lower()


def _babel(app, catalog_dir, lang: str) -> None:
    """Flask-Babel on the app as i18n-web sets it up, with the help domain's catalogs alone."""
    Babel(app, default_translation_directories=str(catalog_dir), default_domain="help", locale_selector=lambda: lang)


def test_the_sheet_editor_says_its_fields_and_refusals_in_the_readers_language(app, client, catalog_dir):
    _babel(app, catalog_dir, "de")
    system = rules.get("savage_worlds")
    sheet = system.default_sheet()
    with app.test_request_context("/"):
        shown = sheetform.form_of(system, sheet)
        fields = sheetviews.views(system, shown, (), shown=shown, words=helptext)
        html = render_template("_sheet_editor.html", game=SimpleNamespace(id="g1"), token=SimpleNamespace(id="t1"),
                               groups=sheetviews.groups(fields), error=None)
        for german in ("Geschicklichkeit", "Grund-Bewegungsweite", "Paradebonus des Schilds", "Talente", "Klingenwaffe",
                       "eine nicht aufgeführte Fertigkeit würfelt d4-2"):
            assert german in html, german
        for english in (">Agility<", ">Base Pace<", "Shield Parry bonus", ">Edges<", "an unlisted skill"):
            assert english not in html, english
        # what the translated editor posts reads back as the sheet it showed: labels are words, not keys
        assert sheetreading.read(system, shown, sheet, words=helptext).changes == {}
        with pytest.raises(sheetreading.FormError) as refused:
            sheetreading.read(system, sheetform.Form([("pace", "viel"), ("size", "")]), sheet, words=helptext)
        assert refused.value.errors == {"pace": "eine ganze Zahl, nicht 'viel'", "size": "eine ganze Zahl wird gebraucht"}
        assert refused.value.labels["pace"] == "Grund-Bewegungsweite"
    # the sheet page itself (webapp/web/sheet/sheets.py) hands the editor these words
    g = client.post("/api/games", json={"name": "Cast", "system": "savage_worlds"}).json
    tok = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1},
                      headers={"Authorization": f"Bearer {g['gm_token']}"}).json["id"]
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")  # this browser is the GM's
    assert client.post(f"/games/{g['id']}/tokens/{tok}/sheet").status_code == 200  # makes Aria's character
    page = client.get(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)
    assert "Geschicklichkeit" in page and "Robustheit" in page and ">Agility<" not in page
    body = client.post(f"/games/{g['id']}/tokens/{tok}/sheet", data={"pace": "schnell"}).get_data(as_text=True)
    assert 'role="alert"' in body and "eine ganze Zahl, nicht &#39;schnell&#39;" in body


def test_the_sheet_editor_reads_as_before_without_a_catalog(app):
    """No Flask-Babel (or English): the fields' labels and refusals are the rules' and the form's own words."""
    system = rules.get("savage_worlds")
    sheet = system.default_sheet()
    with app.test_request_context("/"):
        fields = sheetviews.views(system, sheetform.form_of(system, sheet), (), words=helptext)
        assert [v.spec.label for v in fields] == [f.label for f in system.sheet_fields()]
        with pytest.raises(sheetreading.FormError) as refused:
            sheetreading.read(system, sheetform.Form([("pace", "lots")]), sheet, words=helptext)
    assert refused.value.errors == {"pace": "a whole number, not 'lots'"} and str(refused.value) == (
        "Base Pace: a whole number, not 'lots'")
