"""gurps_lite: the sheet partial and the help page render and escape sheet text."""

import os

from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from rules import gurps_lite as g
from webapp.web.helptext import install as install_gettext  # the help templates' gettext and filters

TEMPLATES = os.path.join(os.path.dirname(__file__), "..", "..", "templates")


def env():
    stand_in = DictLoader({"help/_layout.html": "<main>{% block help %}{% endblock %}</main>"})
    return install_gettext(Environment(loader=ChoiceLoader([stand_in, FileSystemLoader(TEMPLATES)]), autoescape=True))


def test_sheet_partial_escapes_sheet_text():
    sheet = g.SYSTEM.default_sheet()
    sheet["name"] = "<script>alert(1)</script>"
    sheet["skills"] = {"<script>x</script>": 12}
    sheet["weapons"] = {**sheet["weapons"], "<b>Axe</b>": {"skill": "Axe", "damage": "sw+2", "type": "cut"}}
    html = env().get_template(g.SYSTEM.sheet_template).render(
        token={"id": "tok1", "name": sheet["name"]}, sheet=sheet, derived=g.SYSTEM.derived(sheet), system=g.SYSTEM)
    assert '<section class="sheet sheet-gurps_lite" id="sheet-tok1">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>Axe</b>" not in html
    assert "Dodge" in html and "Broadsword" in html


def test_help_page_lists_every_reading_and_setting():
    html = env().get_template(g.SYSTEM.help_template).render(system=g.SYSTEM)
    for title in ("What the app automates", "What the GM adjudicates", "Readings chosen", "Settings"):
        assert title in html
    for title, _text, setting in g.READINGS:
        assert title in html
        if setting:
            assert setting in html
    for key in g.default_settings():
        assert key in html
