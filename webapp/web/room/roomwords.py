"""The room's words (issue #37: the "room" domain of translations/, translations/room.cfg): its gettext for the
routes' notices and refusals, the console lines of ``tacmap serve --room`` and ``tacmap room-password`` in the
system's language, and gettext in the room's templates where the app has not installed it."""

from __future__ import annotations

import os
from pathlib import Path

import flask_babel
from flask import current_app, has_request_context

TRANSLATIONS = Path(__file__).resolve().parents[3] / "translations"


def N_(message: str) -> str:
    """A message marked for the catalog, kept in English here and said in the reader's language where it is
    shown (``_(message)``)."""
    return message


def _(message: str, **params) -> str:
    """``message`` in this request's language: Flask-Babel's gettext where the app set it up (the catalogs of
    every domain merged), the English itself until then. ``%(name)s`` params filled in after the lookup."""
    if has_request_context() and "babel" in current_app.extensions:
        return flask_babel.gettext(message, **params)
    return message % params if params else message


def ngettext(singular: str, plural: str, num: int, **params) -> str:
    """The plural form of ``num`` in this request's language (``%(num)d`` is the count)."""
    if has_request_context() and "babel" in current_app.extensions:
        return flask_babel.ngettext(singular, plural, num, **params)
    params.setdefault("num", num)
    return (singular if num == 1 else plural) % params


def _console(message: str, **params) -> str:
    """A console line in the system's language where a catalog has it: the languages' setup's console catalog
    (webapp/web/i18n.py, every domain) where it is there, else the room's own compiled catalog; English otherwise."""
    try:
        from ..i18n import console_translations  # type: ignore[attr-defined]

        translations = console_translations()
    except ImportError:
        from babel.support import Translations

        wanted = next((v for v in (os.environ.get(k) for k in ("LC_ALL", "LC_MESSAGES", "LANG")) if v), "en")
        translations = Translations.load(str(TRANSLATIONS), [wanted.split(".")[0].split("_")[0]], "room")
    out = translations.gettext(message)
    return out % params if params else out


def console_lines(base: str, link: str | None) -> list[str]:
    """What ``tacmap serve --room`` prints: where the organiser and the volunteers go, and the setup link
    while the organiser password is not set."""
    lines = [_console(N_("Room mode: the organiser's page is %(room)s, volunteer GMs type their PIN at %(pin)s"),
                      room=f"{base}/room", pin=f"{base}/pin")]
    if link:
        lines.append(_console(N_("Set the organiser password once, on this link (it works once; keep it off the "
                                 "Wi-Fi's shared screens): %(link)s"), link=link))
    return lines


def forgotten_password_line(path: str) -> str:
    """What ``tacmap room-password`` prints."""
    return _console(N_("The organiser password is gone (every organiser is logged out). Set a new one once, at "
                       "the server's address (running or next started with --room): %(link)s"),
                    link=f"http://<server>:<port>{path}")


def gettext_in_templates(state) -> None:
    """The room's pages mark their text for translation (``{% trans %}``, ``_()``). Where the app has not
    installed gettext in Jinja yet (Flask-Babel does, with the catalogs), they still render, in English. Run once
    per app, where the room's blueprint is registered (webapp/web/room/room.py)."""
    env = state.app.jinja_env
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
        env.install_null_translations(newstyle=True)  # newstyle, as Flask-Babel's: the same msgids
