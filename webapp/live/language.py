"""Which language a page or a live update is drawn in, and the rules' words put in it (issue #37).

A page speaks its request's language; a live update is drawn once per (audience, language) with
:func:`speaking`, and the rules' words in it (``rules.text.Say``: log lines, result cards) are put in that
language by :func:`words` (``webapp.game.speech``). The request's language is Flask-Babel's choice when the
app has Flask-Babel (``?lang=``, the ``lang`` cookie, Accept-Language: webapp/web/i18n.py), else the same
rules read here. A connection keeps the language of its handshake; the table screen's audience speaks the
GM's choice for it (``screenview.screen_language``) or, without one, its devices' own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from flask import current_app, has_app_context, has_request_context, request

from ..game import speech
from ..game.model import Rejected
from .speech import COOKIE, LANGUAGES, PSEUDO, device_language  # noqa: F401 (the device's choice: one place)

CHOOSABLE = LANGUAGES + (PSEUDO,)

_speaking: ContextVar[str | None] = ContextVar("tacmap_speaking", default=None)


def _ours(code: str | None) -> str | None:
    if not code or not isinstance(code, str) or len(code) > 20:
        return None
    found = speech.normalize(code)
    return found if found in LANGUAGES or found == PSEUDO else None


def _babel() -> bool:
    return has_app_context() and "babel" in current_app.extensions


def request_language() -> str:
    """This request's language (a page, a socket's handshake). A page: Flask-Babel's choice when the app has
    it (which may speak for someone else: the table screen's page speaks the GM's choice). A socket's handshake
    (Flask-Babel answers English there on purpose: what the live code renders goes to a whole audience) and an
    app without Flask-Babel: the device's own, ``?lang=``, the ``lang`` cookie, its Accept-Language, English."""
    if not has_request_context():
        return speech.SOURCE
    if _babel() and not request.path.startswith("/socket.io"):
        from flask_babel import get_locale
        return _ours(str(get_locale() or "")) or speech.SOURCE
    return _ours(device_language()) or speech.SOURCE


def reader_language() -> str:
    """The language being drawn in: a live update's (:func:`speaking`), else the request's."""
    return _speaking.get() or request_language()


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Draw in ``language`` (a live update for the readers of one language): the rules' words, and with
    Flask-Babel the templates' own words too."""
    language = _ours(language) or speech.SOURCE
    token = _speaking.set(language)
    try:
        if _babel():
            from flask_babel import force_locale
            with force_locale(language):
                yield language
        else:
            yield language
    finally:
        _speaking.reset(token)


def _app_catalog(language: str):
    """Flask-Babel's merged catalog for ``language`` (all domains), when the app has Flask-Babel."""
    if not _babel() or language == speech.SOURCE:
        return None
    cache = current_app.extensions.setdefault("tacmap_rule_catalogs", {})
    found = cache.get(language)
    if found is None:
        from flask_babel import force_locale, get_domain
        with force_locale(language):
            found = cache[language] = get_domain().get_translations()
    return found


def words(value: Any, language: str | None = None) -> Any:
    """``value`` (rules' words, a list, or a dict of them: a result card) in ``language`` (default: the
    reader's); text that is not words stays as it is; the stored messages (``"_say"``) are left out."""
    language = _ours(language) or reader_language()
    found = _app_catalog(language)
    return _deep(value, language, found)


def refusal(message: Any) -> str:
    """A refusal's words (``Rejected``) for the one who is refused: in the request's language."""
    return str(words(message))


Rejected.speak = staticmethod(refusal)


def _deep(value: Any, language: str, found) -> Any:
    if isinstance(value, dict):
        return {k: _deep(v, language, found) for k, v in value.items() if k != "_say"}
    if isinstance(value, list):
        return [_deep(v, language, found) for v in value]
    return speech.words(value, language, found)
