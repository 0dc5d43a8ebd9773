"""The templates' gettext (webapp/web/i18n.py, ``quick_gettext``): the same words as Jinja's newstyle gettext that
Flask-Babel installs (escaping, variables, plurals, contexts), but a ``_()`` inside a loop of a live fragment no longer
computes every value of the fragment's lazy context (Jinja derived a context for it, copying every name: #71)."""

from __future__ import annotations

import jinja2
import pytest
from flask_babel import get_translations

from webapp.live.screens.context import Lazy
from webapp.live.screens.templating import fragment_env

TEMPLATES = [
    '{% for i in [1, 2] %}{% set j = i %}{{ _("Players") }} {{ _("%(name)s twice", name=who) }}{{ j }}|{% endfor %}',
    '{{ _("%(name)s twice", name=who) }} {{ gettext("Fighter") }}',
    '{% for n in [1, 3] %}{% trans count=n %}{{ count }} fight reached round 20 and counts as nobody\'s win'
    '{% pluralize %}{{ count }} fights reached round 20 and count as nobody\'s win{% endtrans %};{% endfor %}',
    '{% for n in [1, 2] %}{{ ngettext("%(num)s door", "%(num)s doors", n) }}{% endfor %}',
    '{{ pgettext("tactic", "careful") }}{{ npgettext("x", "%(num)s turn", "%(num)s turns", 2) }}',
    '{% trans name=who %}{{ name }} in the fight{% endtrans %}',
]


def jinjas_own(app, autoescape: bool) -> jinja2.Environment:
    """A Jinja environment with the i18n extension's newstyle callables as Flask-Babel installs them."""
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], autoescape=autoescape)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: get_translations().ugettext(s), ngettext=lambda s, p, n: get_translations().ungettext(s, p, n),
        newstyle=True, pgettext=lambda c, s: get_translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: get_translations().unpgettext(c, s, p, n))
    return env


@pytest.mark.app_config(DEMO=False)
@pytest.mark.parametrize("language", ["en", "de", "fr"])
@pytest.mark.parametrize("autoescape", [True, False])
def test_the_words_are_jinjas_newstyle_gettexts_words(app, language, autoescape):
    ours = app.jinja_env.overlay(autoescape=autoescape)
    theirs = jinjas_own(app, autoescape)
    with app.test_request_context(f"/?lang={language}", headers={"Accept-Language": language}):
        for source in TEMPLATES:
            for who in ("Ann", "<b>Orc</b> & co"):
                mine = ours.from_string(source).render(who=who)
                assert mine == theirs.from_string(source).render(who=who), source
        said = ours.from_string(TEMPLATES[0]).render(who="Ann")
        assert ("Spieler" in said) == (language == "de")  # the request's language


@pytest.mark.app_config(DEMO=False)
def test_a_gettext_in_a_loop_computes_no_other_value_of_a_fragments_context(app):
    computed: list[str] = []

    def maker(name):
        def make(_ctx):
            computed.append(name)
            return name
        return make

    env = fragment_env(app)
    # (a loop that sets a name: Jinja passes a context-taking callable a context derived with it)
    template = env.from_string('{% for t in tokens %}{% set who = t %}{{ _("%(name)s twice", name=who) }}{% endfor %}')
    ctx = Lazy({"tokens": lambda _c: ["Ann", "Bob"], "walls": maker("walls"), "log": maker("log")}, env.globals)
    with app.test_request_context("/"):
        out = "".join(template.root_render_func(template.new_context(ctx, shared=True)))
    assert out == "Ann twiceBob twice"
    assert computed == []  # Jinja's own gettext derived a context here, and that computed "walls" and "log"
