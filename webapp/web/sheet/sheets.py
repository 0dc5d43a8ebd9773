"""Character sheets: the page of a token's sheet, and its editor (the GM, and the token's player).

The routes belong to the game blueprint (``game.sheet``); they live here to keep
the game pages and the sheets apart. An edit is an ``update_sheet`` command like
any other: the rules check it, the log keeps it, and a refusal comes back
inline beside the form, with nothing stored.
"""

from __future__ import annotations

from flask import abort, render_template, request
from flask_babel import gettext as _

import rules
from rules.system import RuleError, RuleNotImplemented, SheetError

from ...game.fight import characters
from ...game.bridge import fighting, fog
from ...game.core.model import Rejected
from ...live.screens import language
from .. import helptext, hub
from . import sheetform, sheetreading, sheetviews
from ..game import _seat, bp


def _token_for(game_id: str, token_id: str):
    actor = _seat(game_id)
    game = hub().game(game_id)
    token = game.tokens.get(token_id)
    if actor is None or token is None or not fog.may_see(game, actor, token) or not (
            actor.role == "gm" or (actor.role == "player" and token.owner == actor.player_id)):
        abort(404, _("No such token, or not yours to look at."))
    return actor, game, token


def _locked(system, actor) -> tuple[str, ...]:
    """The fields this actor may not change: the GM's own, for a player."""
    return () if actor.role == "gm" else tuple(getattr(system, "gm_only_fields", ()))


def _context(game, token, actor, error: str | None = None, notice: str = "",
             form: sheetform.Form | None = None, errors: dict[str, str] | None = None) -> dict:
    """The sheet and its editor; ``form`` and ``errors``: a refused form, shown again as it was sent with
    each reason beside its field."""
    system = rules.get(game.system)
    character = fighting.of_token(game, token.id)
    sheet = fighting.sheet_of(game, token)
    try:
        derived = language.words(system.derived(sheet))  # the rules' words of it (a state) in the reader's language
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        derived = {}
    locked = _locked(system, actor)
    shown = sheetform.form_of(system, sheet)
    fields = sheetviews.views(system, form if form is not None else shown, locked, errors, shown=shown,
                             words=helptext)  # the fields' words in the reader's language ("help" domain)
    return dict(game=game, token=token, system=system, sheet=sheet, derived=derived, actor=actor,
                character=character, fields=fields, groups=sheetviews.groups(fields), error=error, notice=notice,
                may_make=characters.may_put_on_token(actor),
                example=character is None and not token.sheet and bool(sheet))


@bp.get("/games/<game_id>/tokens/<token_id>/sheet")
def sheet(game_id: str, token_id: str):
    """A token's character sheet, for the GM and the token's player."""
    actor, game, token = _token_for(game_id, token_id)
    return render_template("sheet.html", **_context(game, token, actor))


@bp.post("/games/<game_id>/tokens/<token_id>/sheet")
def edit_sheet(game_id: str, token_id: str):
    """Make the token's character, or save the sheet's changed fields; answers the sheet anew.

    A value the form cannot read or the rules refuse comes back beside its field with the reason, and
    the form as it was sent (what was typed stays); nothing is stored."""
    actor, game, token = _token_for(game_id, token_id)
    h = hub()
    character = fighting.of_token(game, token.id)
    if character is None:
        payload = {"type": "add_character", "name": token.name, "token_id": token.id}
        if token.sheet:
            payload["sheet"] = token.sheet
        if actor.role == "gm" and token.owner:
            payload["owner"] = token.owner
        try:
            h.execute(game_id, actor, payload)
        except Rejected as exc:
            return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor,
                                                                  language.refusal_text(exc)))
        return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, notice=_("Saved.")))
    system = rules.get(game.system)
    form = sheetform.Form(request.form.items(multi=True))

    def refused(message: str, errors: dict[str, str] | None = None):
        return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, message,
                                                              form=form, errors=errors))

    def beside(labels: dict[str, str], place: str, reason, errors: dict[str, str]):
        """The form again, ``reason`` beside the field at ``place`` and said above the form with the field's
        label as the form shows it: one sentence in the reader's language, the rules' reason in it too."""
        reason = language.words(reason)
        return refused(_("%(field)s: %(reason)s", field=labels.get(place, place), reason=reason),
                       {**errors, place: reason})

    try:
        reading = sheetreading.read(system, form, character.sheet, _locked(system, actor), words=helptext)
    except sheetreading.FormError as exc:
        first = next(iter(exc.errors))
        return beside(exc.labels, first, exc.errors[first], exc.errors)
    if not reading.changes:
        return render_template("_sheet_body.html", **_context(game, token, actor, notice=_("Nothing changed.")))
    validate = getattr(system, "validate_sheet", None)
    if validate is not None:  # the rules' refusal beside the field it names (the command checks again)
        try:
            validate(characters.apply_changes(character.sheet, reading.changes))
        except SheetError as exc:
            place = reading.place(exc.path)
            if place is not None:
                return beside(reading.labels, place, exc.reason, {})
        except (RuleError, Rejected, ValueError, TypeError, KeyError):
            pass  # said by the command below
    try:
        h.execute(game_id, actor, {"type": "update_sheet", "character_id": character.id, "changes": reading.changes})
    except Rejected as exc:
        return refused(language.refusal_text(exc))
    return render_template("_sheet_body.html", **_context(h.game(game_id), token, actor, notice=_("Saved.")))
