"""The rules help: what each system automates and every reading chosen."""

from __future__ import annotations

from flask import Blueprint, abort, render_template
from flask_babel import gettext as _

import rules
from rules import lighting

from . import helptext

bp = Blueprint("help", __name__, url_prefix="/help")


@bp.record_once
def _gettext_in_templates(state) -> None:
    """The help pages and sheets mark their text for translation (``{% trans %}``, ``_()``; the "help"
    domain of translations/). Where the app has not installed gettext in Jinja yet (Flask-Babel does, with
    the catalogs), they still render, in English."""
    helptext.install(state.app.jinja_env)


@bp.get("/")
def index():
    return render_template("help/index.html", systems=rules.systems())


@bp.get("/<system_id>")
def system(system_id: str):
    try:
        chosen = rules.get(system_id)
    except KeyError:
        abort(404, _("No rule system %(system)s.", system=repr(system_id)))
    return render_template(chosen.help_template, system=chosen, dark_vision=lighting.dark_vision(chosen.id))
