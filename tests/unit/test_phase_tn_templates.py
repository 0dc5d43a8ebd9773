"""phase_tn: the sheet partial and the help page render and escape sheet text."""

from pathlib import Path

from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

from rules import phase_tn as pt
from webapp.web.helptext import install as install_gettext  # the help templates' gettext and filters

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def env():
    loaders = [FileSystemLoader(str(TEMPLATES))]
    if not (TEMPLATES / "help" / "_layout.html").exists():
        loaders.append(DictLoader({"help/_layout.html": "<main>{% block help %}{% endblock %}</main>"}))
    environment = install_gettext(Environment(loader=ChoiceLoader(loaders), autoescape=True))
    # the real layout links with Flask's url_for; a stand-in is enough here
    environment.globals["url_for"] = lambda endpoint, **values: f"/{endpoint}"
    return environment


def test_sheet_partial_escapes_sheet_text():
    sheet = pt.SYSTEM.default_sheet()
    sheet["weapons"][0]["name"] = "<script>alert(1)</script>"
    sheet["trauma"] = {"left arm": 1}
    token = {"id": "t1", "name": "<script>x</script>"}
    html = env().get_template(pt.SYSTEM.sheet_template).render(
        token=token, sheet=sheet, derived=pt.SYSTEM.derived(sheet), system=pt.SYSTEM
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'id="sheet-t1"' in html and 'class="sheet sheet-phase_tn"' in html
    assert "left arm useless" in html


def test_help_page_lists_every_setting():
    html = env().get_template(pt.SYSTEM.help_template).render(system=pt.SYSTEM)
    for section in ("What the app automates", "What the GM adjudicates", "Readings chosen", "Settings and their defaults"):
        assert section in html
    for key in pt.default_settings():
        assert f"<code>{key}</code>" in html
