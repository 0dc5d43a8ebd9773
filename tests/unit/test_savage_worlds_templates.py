"""Savage Worlds sheet partial and help page render, and escape sheet text."""

from pathlib import Path

from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from rules import savage_worlds as sw
from webapp.web.helptext import install as install_gettext  # the help templates' gettext and filters

S = sw.SYSTEM
TEMPLATES = str(Path(__file__).resolve().parents[2] / "templates")  # this checkout's pages


def env():
    stand_in = DictLoader({"help/_layout.html": "<main>{% block help %}{% endblock %}</main>"})
    return install_gettext(Environment(loader=ChoiceLoader([stand_in, FileSystemLoader(TEMPLATES)]), autoescape=True))


def test_sheet_renders_and_escapes():
    sheet = S.default_sheet()
    sheet["name"] = "<script>alert(1)</script>"
    sheet["edges"] = ["<b>Brave</b>"]
    sheet["weapons"]["<img src=x>"] = {"damage": "Str+d4"}
    sheet["shaken"] = True
    html = env().get_template(S.sheet_template).render(
        token={"id": "t1", "name": sheet["name"]}, sheet=sheet, derived=S.derived(sheet), system=S)
    assert '<section class="sheet sheet-savage_worlds" id="sheet-t1">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>Brave" not in html and "<img" not in html
    assert "Shaken" in html
    assert "7 (1)" in html  # Toughness 7 with 1 armour shown apart
    assert "Parry" in html and "Pace" in html


def test_extra_sheet_renders():
    sheet = S.default_sheet()
    sheet.update(wild_card=False, group="goons", weapons={}, edges=[])
    html = env().get_template(S.sheet_template).render(
        token={"id": "g", "name": "Goon"}, sheet=sheet, derived=S.derived(sheet), system=S)
    assert "Extra" in html and "goons" in html


def test_help_page_lists_sections_and_every_setting():
    html = env().get_template(S.help_template).render(system=S)
    for heading in ("What the app automates", "What the GM adjudicates",
                    "Readings chosen where the rules are silent", "Settings and their defaults"):
        assert heading in html
    for key in S.default_settings():
        assert f"<code>{key}</code>" in html
