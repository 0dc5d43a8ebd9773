"""Hand-outs and token pictures over HTTP (#27): the page uploads, with the page's session.

POST /games/<id>/handouts    the GM page makes a hand-out (``file``?, ``text``?, ``title``)
POST /games/<id>/pictures    the GM page, or a player's for their own token, uploads a token picture
                             (``file``, ``token_id``?)

The JSON API has the same two with a Bearer token (api.py). Both answer 201 in JSON, or the reason.
Pictures are checked as map pictures are (webapp/storage/pictures.py); they are served by maps.picture.
"""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..game.board import uvtt
from ..game.core.model import Rejected
from ..storage import pictures
from . import hub
from ..live import uploads
from ..live.screens.language import refusal_text as refusal
from .game import _seat
from .maps import UPLOAD_SLACK, asker, busy, refused, uploaded_file

bp = Blueprint("handouts", __name__)
bp.register_error_handler(HTTPException, refused)
bp.register_error_handler(pictures.PicturesBusy, busy)


def _form_text(name: str) -> str:
    return request.form.get(name) or ""


def new_handout(game_id: str, actor) -> tuple:
    """Shared by the page and the API: 201 {"handout_id"} or a refusal (nothing kept)."""
    if actor is None or actor.role != "gm":
        abort(403, _("only the GM can make hand-outs"))
    request.max_content_length = uvtt.MAX_PICTURE_BYTES + UPLOAD_SLACK
    try:
        given = request.files.get("file")
    except RequestEntityTooLarge:
        abort(413, _("the file is over the limit of %(mb)s MB", mb=uvtt.MAX_PICTURE_BYTES // 1048576))
    data = None
    if given is not None:
        data, filename = uploaded_file(uvtt.MAX_PICTURE_BYTES)
        if not data and not filename:
            data = None  # a form's file field left empty: a text hand-out
    try:
        done = uploads.add_handout(hub(), game_id, actor, data, _form_text("title"), _form_text("text"),
                                   asker(game_id, actor))
    except Rejected as exc:
        abort(422, refusal(exc))
    return jsonify(done), 201


def new_picture(game_id: str, actor) -> tuple:
    """Shared by the page and the API: 201 {"picture_id", "token_id"?} or a refusal (nothing kept)."""
    if actor is None or actor.role not in ("gm", "player"):
        abort(403, _("only the GM, or a player for their own token, can upload token pictures"))
    data, filename = uploaded_file(uvtt.MAX_PICTURE_BYTES)
    try:
        done = uploads.add_token_picture(hub(), game_id, actor, data, filename,
                                         (request.form.get("token_id") or "").strip() or None, asker(game_id, actor))
    except Rejected as exc:
        abort(422, refusal(exc))
    return jsonify(done), 201


@bp.post("/games/<game_id>/handouts")
def page_handout(game_id: str):
    return new_handout(game_id, _seat(game_id))


@bp.post("/games/<game_id>/pictures")
def page_picture(game_id: str):
    return new_picture(game_id, _seat(game_id))
