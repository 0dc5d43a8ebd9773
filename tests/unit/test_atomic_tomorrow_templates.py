"""Atomic Tomorrow's sheet partial and help page render and escape sheet text."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from rules import atomic_tomorrow as at
from webapp.web.helptext import install as install_gettext  # the help templates' gettext and filters

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SYSTEM = at.SYSTEM


@pytest.fixture
def env():
    # stand-in layout: the real one needs the app (url_for, base.html)
    stand_in = DictLoader({"help/_layout.html": "<main>{% block help %}{% endblock %}</main>"})
    return install_gettext(Environment(loader=ChoiceLoader([stand_in, FileSystemLoader(str(TEMPLATES))]), autoescape=True))


def test_sheet_partial_renders_and_escapes(env):
    sheet = SYSTEM.default_sheet()
    sheet["epithets"] = ["Two-Fisted", "<script>alert(2)</script>"]
    sheet["weapons"][0]["name"] = "<script>alert(3)</script>"
    token = {"id": "t1", "name": "<script>alert(1)</script>"}
    html = env.get_template(SYSTEM.sheet_template).render(token=token, sheet=sheet, derived=SYSTEM.derived(sheet), system=SYSTEM)
    assert '<section class="sheet sheet-atomic_tomorrow" id="sheet-t1">' in html
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)" in html and "&lt;script&gt;alert(3)" in html
    assert "60%" in html  # GRIT 12 x 5 soak
    assert "Blast pistol" not in html and "Vibro-knife" in html


def test_sheet_partial_with_a_sparse_sheet(env):
    sheet = {"grit": 9, "weapons": [{"name": "Fists?", "skill": "unarmed"}]}
    html = env.get_template(SYSTEM.sheet_template).render(
        token={"id": "x", "name": "X"}, sheet=sheet, derived=SYSTEM.derived(sheet), system=SYSTEM)
    assert "45%" in html and "Engaged" in html


def test_help_page_lists_every_setting_and_reading(env):
    html = " ".join(env.get_template(SYSTEM.help_template).render(system=SYSTEM).split())
    for heading in ("What the app automates", "What the GM adjudicates", "Readings chosen", "Settings and their defaults"):
        assert heading in html
    for key in at.DEFAULT_SETTINGS:
        assert f"<code>{key}</code>" in html
    assert "the same zone = Near" in html and "an adjacent zone = Far" in html
    assert "Distant" in html


def test_help_page_extends_the_app_layout():
    text = (TEMPLATES / SYSTEM.help_template).read_text()
    assert text.startswith('{% extends "help/_layout.html" %}')


def test_help_page_names_the_turn_readings(env):
    html = " ".join(env.get_template(SYSTEM.help_template).render(system=SYSTEM).split())
    assert "<code>initiative_each_round</code>" in html
    assert "Initiative each round" in html and "No surprise, no holding" in html
    assert "The Last Stand's final action" in html and "A failed GRIT×1 roll" in html


def test_help_page_says_what_the_map_automates_and_keeps_the_status_include(env):
    text = (TEMPLATES / SYSTEM.help_template).read_text()
    assert '{% include "help/_app_status.html" %}' in text
    status = DictLoader({"help/_app_status.html": "<p>APP STATUS</p>",
                         "help/_layout.html": "<main>{% block help %}{% endblock %}</main>"})
    with_status = install_gettext(Environment(loader=ChoiceLoader([status, FileSystemLoader(str(TEMPLATES))]), autoescape=True))
    assert "APP STATUS" in with_status.get_template(SYSTEM.help_template).render(system=SYSTEM)
    html = " ".join(env.get_template(SYSTEM.help_template).render(system=SYSTEM).split())
    for words in ("Moves with the allowance", "1 zone step", "never gives anyone a free attack",
                  "Attacks with odds", "Badges", "Collapsed", "wounds are set by the rules and the GM"):
        assert words in html, words
