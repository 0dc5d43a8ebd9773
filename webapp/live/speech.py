"""Which language a device reads, and a refusal said in it (issue #37). The pages' side of it (Flask-Babel, the
catalogs, the chooser) is webapp/web/i18n.py; this part is here so the live side (Socket.IO answers) uses it too.

A device's language: ``?lang=xx`` (kept in the ``lang`` cookie), the cookie, its Accept-Language among ours (the
pseudo-locale only when named), else English."""

from __future__ import annotations

from flask import has_request_context, request
from flask_babel import force_locale, gettext

from ..game.screenview import LANGUAGES as CHOOSABLE

PSEUDO = "en_XA"  #: the pseudo-locale for testing: chosen only by name, never by a browser's preference
LANGUAGES = tuple(lang for lang in CHOOSABLE if lang != PSEUDO)  #: en, de, fr, es
COOKIE = "lang"


def normalize(code: str | None) -> str | None:
    """A language code as the catalogs name it (``de``, ``en_XA``), or None when it is not one of ours."""
    if not code:
        return None
    code = code.strip().replace("-", "_")
    for lang in CHOOSABLE:
        if code.lower() == lang.lower():
            return lang
    return None


def from_accept_language(header) -> str | None:
    """The browser's best choice among ours; en_XA only when it is named."""
    best = header.best_match(LANGUAGES) if header else None
    for value, _q in header or ():
        if normalize(value) == PSEUDO:
            return PSEUDO if best is None or header.quality(value) >= header.quality(best) else best
    return best


def device_language() -> str:
    """This request's device's language: ?lang=, the cookie, Accept-Language, English. On a Socket.IO event,
    the connection's (its handshake's cookie and headers)."""
    if not has_request_context():
        return "en"
    return (normalize(request.args.get("lang")) or normalize(request.cookies.get(COOKIE))
            or from_accept_language(request.accept_languages) or "en")


def refusal(exc: BaseException) -> str:
    """A refusal in the current language: a message id with parameters where the refusal carries them
    (``msgid``, ``params``; a refused payload's ``parts``), else its English sentence looked up in the catalogs (any domain's), else as it is."""
    parts = getattr(exc, "parts", None)
    if parts:  # a refused payload's errors (webapp/game/validation.py), each said whole, its words too
        words = getattr(exc, "words", ())
        return "; ".join(gettext(msgid, **{k: gettext(v) if k in words else v for k, v in params.items()})
                         for msgid, params in parts)
    msgid = getattr(exc, "msgid", None)
    if msgid:
        return gettext(msgid, **(getattr(exc, "params", None) or {}))
    text = str(exc)
    return gettext(text) if text else text


def to_sender(exc: BaseException) -> str:
    """A refusal for the device that sent a Socket.IO event, in that device's language."""
    with force_locale(device_language()):
        return refusal(exc)


def said_in(language: str | None, message: str, params: dict | None = None) -> str:
    """A message id (``N_``-marked) with its parameters in ``language``: a notice pushed to a connection, in
    the language of that connection's device (its handshake's), whoever caused it. Needs an app context (the
    hub's app gives one where there is none)."""
    with force_locale(normalize(language) or "en"):
        return gettext(message, **(params or {}))
