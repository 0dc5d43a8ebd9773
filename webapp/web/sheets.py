"""Character sheets: the page of a token's sheet, and its editor (the GM, and the token's player).

The routes belong to the game blueprint (``game.sheet``); they live here to keep
the game pages and the sheets apart. An edit is an ``update_sheet`` command like
any other: the rules check it, the log keeps it, and a refusal comes back
inline beside the form, with nothing stored.
"""

from __future__ import annotations

import json
import math

from flask import abort, render_template, request

import rules
from rules.system import RuleError, RuleNotImplemented

from ..game import characters, fog
from ..game.model import Rejected
from . import hub
from .game import _seat, bp


def _token_for(game_id: str, token_id: str):
    actor = _seat(game_id)
    game = hub().game(game_id)
    token = game.tokens.get(token_id)
    if actor is None or token is None or not fog.may_see(game, actor, token) or not (
            actor.role == "gm" or token.owner == actor.player_id):
        abort(404, "No such token, or not yours to look at.")
    return actor, game, token


def _context(game, token, actor, error: str | None = None, field: str | None = None, notice: str = "") -> dict:
    system = rules.get(game.system)
    character = characters.of_token(game, token.id)
    sheet = characters.sheet_of(game, token)
    try:
        derived = system.derived(sheet)
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        derived = {}
    fields = [{"field": f, "value": lookup(sheet, f.key)} for f in system.sheet_fields()]
    return dict(game=game, token=token, system=system, sheet=sheet, derived=derived, actor=actor,
                character=character, fields=fields, error=error, error_field=field, notice=notice,
                may_make=characters.may_put_on_token(actor),
                example=character is None and not token.sheet and bool(sheet))


def lookup(sheet: dict, key: str):
    at = sheet
    for part in key.split("."):
        if not isinstance(at, dict):
            return None
        at = at.get(part)
    return at


@bp.get("/games/<game_id>/tokens/<token_id>/sheet")
def sheet(game_id: str, token_id: str):
    """A token's character sheet, for the GM and the token's player."""
    actor, game, token = _token_for(game_id, token_id)
    return render_template("sheet.html", **_context(game, token, actor))


def _parse(kind: str, raw: str):
    """A form's text as the sheet field's kind; ValueError says what was expected."""
    raw = raw.strip()
    if kind == "int":
        return int(raw)
    if kind == "float":
        value = float(raw)
        if not math.isfinite(value):
            raise ValueError("expected a finite number")
        return value
    if kind == "bool":
        return raw in ("true", "on", "yes", "1")
    if kind in ("list", "dict"):
        try:
            value = json.loads(raw)
        except RecursionError:
            raise ValueError("nested too deep") from None
        if not isinstance(value, list if kind == "list" else dict):
            raise ValueError(f"expected a {'list' if kind == 'list' else 'table'} in JSON")
        return value
    return raw


@bp.post("/games/<game_id>/tokens/<token_id>/sheet")
def edit_sheet(game_id: str, token_id: str):
    """Make the token's character, or save the sheet's changed fields; answers the sheet anew."""
    actor, game, token = _token_for(game_id, token_id)
    h = hub()
    character = characters.of_token(game, token.id)
    try:
        if character is None:
            payload = {"type": "add_character", "name": token.name, "token_id": token.id}
            if token.sheet:
                payload["sheet"] = token.sheet
            if actor.role == "gm" and token.owner:
                payload["owner"] = token.owner
            h.execute(game_id, actor, payload)
        else:
            system = rules.get(game.system)
            changes = {}
            for f in system.sheet_fields():
                if f.kind == "bool":
                    raw = "true" if request.form.get(f.key) else "false"
                elif f.key in request.form:
                    raw = request.form[f.key]
                else:
                    continue
                try:
                    value = _parse(f.kind, raw)
                except ValueError as exc:
                    raise _FieldError(f.key, f"{f.label}: {exc}") from None
                if value != lookup(character.sheet, f.key):
                    changes[f.key] = value
            if not changes:
                return render_template("_sheet_body.html", **_context(game, token, actor, notice="Nothing changed."))
            h.execute(game_id, actor, {"type": "update_sheet", "character_id": character.id, "changes": changes})
    except _FieldError as exc:
        return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, str(exc), exc.field))
    except Rejected as exc:
        return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, str(exc)))
    return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, notice="Saved."))


class _FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
