"""Map files over HTTP: pictures served to the game's seats, uploads from the GM page.

GET  /games/<id>/pictures/<sha256>.<ext>   a map picture, to holders of a key of that game
POST /games/<id>/maps                      the GM page imports a Universal VTT file (field ``file``)
POST /games/<id>/maps/picture              the GM page sets a map's picture (``file``, ``map_id``?)

The JSON API has the same two uploads with a Bearer token (views/api.py).
"""

from __future__ import annotations

import io

from flask import Blueprint, abort, current_app, jsonify, request, send_file
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..storage import pictures
from ..game.board import uvtt
from ..game.core.model import Rejected
from . import hub, remembered_key
from ..live import uploads
from ..live.screens.language import refusal_text as refusal

bp = Blueprint("maps", __name__)

UPLOAD_SLACK = 64 * 1024  # the multipart envelope and the small fields around the file
#: a picture opened on its own (its address in a tab) runs nothing and loads nothing
PICTURE_CSP = {"default-src": "'none'", "sandbox": ""}


@bp.errorhandler(HTTPException)
def refused(exc: HTTPException):
    """An upload from the GM page is answered in JSON (upload.js shows the reason); a picture's error is a page."""
    if request.method == "POST":
        return jsonify(error=exc.description), exc.code
    from .errors import error_page

    return error_page(exc)


def busy(exc: pictures.PicturesBusy):
    """Every decode place stayed taken (503), or this seat asked for more picture work than its share (429):
    with Retry-After (JSON for an upload, the site's page for a picture)."""
    if request.method == "POST":
        response = jsonify(error=refusal(exc))  # in the sender's language
        response.status_code = exc.status
    else:
        from .errors import error_page
        from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

        answer = TooManyRequests if exc.status == 429 else ServiceUnavailable
        response = error_page(answer(refusal(exc)))
        response = current_app.make_response(response)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


bp.register_error_handler(pictures.PicturesBusy, busy)


def asker(game_id: str, actor) -> pictures.Asker:
    """Whom this request's picture work is counted against (webapp/storage/pictures.py): its seat and address."""
    return pictures.Asker(f"{game_id}:{actor.audience}", request.remote_addr)


def uploaded_file(limit: int) -> tuple[bytes, str]:
    """The bytes and name of the multipart field ``file``, within ``limit`` bytes; 400/413 otherwise."""
    request.max_content_length = limit + UPLOAD_SLACK
    try:
        f = request.files.get("file")
    except RequestEntityTooLarge:
        abort(413, _("the file is over the limit of %(mb)s MB", mb=limit // 1048576))
    if f is None:
        abort(400, _("send the file as multipart/form-data in the field 'file'"))
    data = f.read(limit + 1)
    if len(data) > limit:
        abort(413, _("the file is over the limit of %(mb)s MB", mb=limit // 1048576))
    return data, f.filename or ""


def import_map(game_id: str, actor) -> tuple:
    """Shared by the page and the API: 201 {"map_id", "name", "walls", "doors", "lights", "ambient"} or a refusal."""
    if actor.role != "gm":
        abort(403, _("only the GM can import maps"))
    data, filename = uploaded_file(uvtt.MAX_FILE_BYTES)
    name = (request.form.get("name") or "").strip() or pictures.map_name(filename)
    try:
        done = uploads.import_uvtt(hub(), game_id, actor, data, name[:40], asker(game_id, actor))
    except Rejected as exc:  # (not imported: the file's reason in the sender's language too)
        abort(422, refusal(exc))
    return jsonify(map_id=done["map_id"], name=done["name"], walls=done["walls"], doors=done["doors"],
                   lights=done["lights"], ambient=done["ambient"], seq=done["seq"]), 201


def set_picture(game_id: str, actor, map_id: str | None) -> tuple:
    if actor.role != "gm":
        abort(403, _("only the GM can set a map's picture"))
    data, _filename = uploaded_file(uvtt.MAX_PICTURE_BYTES)
    try:
        done = uploads.upload_picture(hub(), game_id, actor, map_id or None, data, asker(game_id, actor))
    except Rejected as exc:
        abort(422, refusal(exc))
    return jsonify(done), 200


def _page_gm(game_id: str):
    h = hub()
    if h.store.game(game_id) is None:
        abort(404, _("There is no such game."))
    key = remembered_key("gm", game_id)
    actor = h.authenticate(game_id, key) if key else None
    if actor is None or actor.role != "gm":
        abort(403, _("only the GM can upload maps"))
    return actor


@bp.post("/games/<game_id>/maps")
def page_import(game_id: str):
    return import_map(game_id, _page_gm(game_id))


@bp.post("/games/<game_id>/maps/picture")
def page_picture(game_id: str):
    actor = _page_gm(game_id)
    return set_picture(game_id, actor, request.form.get("map_id"))


def _viewer(game_id: str):
    """Whoever holds a key of this game: a Bearer token, else a key this browser's session remembers."""
    h = hub()
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return h.authenticate(game_id, header[7:].strip())
    for role in ("gm", "screen", "player"):
        key = remembered_key(role, game_id)
        actor = h.authenticate(game_id, key) if key else None
        if actor is not None:
            return actor
    return None


@bp.get("/games/<game_id>/pictures/<name>")
def picture(game_id: str, name: str):
    h = hub()
    if h.store.game(game_id) is None:
        abort(404, _("There is no such game."))
    actor = _viewer(game_id)
    if actor is None:
        abort(403, _("Pictures are for the seats of this game."))
    game = h.game(game_id)
    if not pictures.may_fetch(game, actor, name):
        abort(404, _("No such picture in this game."))
    path = pictures.path_of(current_app.config["DATA_DIR"], game_id, name, h.store)
    if path is None:
        abort(404, _("No such picture in this game."))
    content_type = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[name.rsplit(".", 1)[1]]
    known = pictures.fogged(game, actor, name)
    if known is not None:  # with fog: what this seat never saw is not in the bytes it gets
        data, etag = pictures.masked(path, game, known, asker(game_id, actor))  # off the loop, kept
        response = send_file(io.BytesIO(data), mimetype=content_type, conditional=True, etag=etag, max_age=0)
    else:
        response = send_file(path, mimetype=content_type, conditional=True, etag=True, max_age=0)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
    # the name is the content's hash: it never changes, but who may see it can (a map shown, then not)
    response.headers["Cache-Control"] = "private, no-cache"
    return response


# flask-talisman writes the site's CSP over every response after the view; its per-view options (what its
# ``@talisman(...)`` decorator sets) make it write the picture's own instead
picture.talisman_view_options = {"content_security_policy": PICTURE_CSP}
