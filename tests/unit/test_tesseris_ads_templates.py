"""Tesseris (ADS): the sheet partial and the help page render and escape sheet text."""

from pathlib import Path

from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from rules.tesseris_ads import SYSTEM
from webapp.web.helptext import install as install_gettext  # the help templates' gettext and filters

TEMPLATES = str(Path(__file__).resolve().parents[2] / "templates")  # this checkout's templates


def env():
    stand_in = DictLoader({"help/_layout.html": "<main>{% block help %}{% endblock %}</main>"})
    # the stand-in layout comes first: the real one needs the app (url_for)
    return install_gettext(Environment(loader=ChoiceLoader([stand_in, FileSystemLoader(TEMPLATES)]), autoescape=True))


def test_sheet_renders_and_escapes():
    sheet = SYSTEM.default_sheet()
    sheet["weapons"]["knife"]["name"] = "<script>alert(1)</script>"
    sheet["statuses"] = [{"name": "Dazed", "rounds": 2}]
    sheet["feats"] = ["<b>Bold</b>"]
    html = env().get_template(SYSTEM.sheet_template).render(
        token={"id": "t1", "name": "<script>x</script>"}, sheet=sheet, derived=SYSTEM.derived(sheet), system=SYSTEM
    )
    assert '<section class="sheet sheet-tesseris_ads" id="sheet-t1">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;Bold" in html
    assert "Dazed" in html and "Assault rifle" in html


def test_help_page_renders_with_settings():
    html = env().get_template(SYSTEM.help_template).render(system=SYSTEM)
    assert "What the app automates" in html and "What the GM adjudicates" in html
    for key in SYSTEM.default_settings():
        assert key in html
