"""The rules help: what each system automates and every reading chosen."""

from __future__ import annotations

from flask import Blueprint, abort, render_template
from flask_babel import gettext as _

import rules
from rules import lighting

bp = Blueprint("help", __name__, url_prefix="/help")


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
