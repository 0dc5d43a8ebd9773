"""The rules help: what each system automates and every reading chosen."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

import rules
from rules import lighting

from . import helptext

bp = Blueprint("help", __name__, url_prefix="/help")


@bp.record_once
def _gettext_in_templates(state) -> None:
    """The help pages and sheets mark their text for translation (``{% trans %}``, ``_()``; the "help"
    domain of translations/). Where the app has not installed gettext in Jinja yet (Flask-Babel does, with
    the catalogs), they still render, in English."""
    env = state.app.jinja_env
    # {{ _(reading|rule_msgid)|as_text }}: a rules text looked up in the catalog, shown as text (webapp/web/helptext.py)
    env.filters["rule_msgid"], env.filters["as_text"] = helptext.rule_msgid, helptext.as_text
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
        env.install_null_translations(newstyle=True)  # newstyle, as Flask-Babel's: the same msgids


@bp.get("/")
def index():
    return render_template("help/index.html", systems=rules.systems())


@bp.get("/<system_id>")
def system(system_id: str):
    try:
        chosen = rules.get(system_id)
    except KeyError:
        abort(404, f"No rule system {system_id!r}.")
    return render_template(chosen.help_template, system=chosen, dark_vision=lighting.dark_vision(chosen.id))
