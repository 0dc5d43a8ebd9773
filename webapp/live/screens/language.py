"""Which language a page or a live update is drawn in, and the rules' words put in it (issue #37).

A page speaks its request's language; a live update is drawn once per (audience, language) with
:func:`speaking`, and the rules' words in it (``rules.text.Say``: log lines, result cards) are put in that
language by :func:`words` (``webapp.game.core.speech``). The request's language is Flask-Babel's choice when the
app has Flask-Babel (``?lang=``, the ``lang`` cookie, Accept-Language: webapp/web/i18n.py), else the same
rules read here. A connection keeps the language of its handshake; the table screen's audience speaks the
GM's choice for it (``screenview.screen_language``) or, without one, its devices' own.

A device's language (:func:`device_language`): ``?lang=xx`` (kept in the ``lang`` cookie), the cookie, its
Accept-Language among ours (the pseudo-locale only when named), else English; a refusal is said to the device
that sent a Socket.IO event in it (:func:`to_sender`). The pages' side (Flask-Babel, the catalogs, the chooser) is
webapp/web/i18n.py, which reads the device's language here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

from flask import current_app, has_app_context, has_request_context, request

from ... import seams
from ...game.core import speech
from ...game.core.model import Rejected
from ...game.tableside.screenview import LANGUAGES as SCREEN_LANGUAGES


# --- a device's language (?lang=, the cookie, Accept-Language), and a refusal said in it ----------------------

PSEUDO = "en_XA"  #: the pseudo-locale for testing: chosen only by name, never by a browser's preference
LANGUAGES = tuple(lang for lang in SCREEN_LANGUAGES if lang != PSEUDO)  #: en, de, fr, es
CHOOSABLE = LANGUAGES + (PSEUDO,)
COOKIE = "lang"


def normalize(code: str | None) -> str | None:
    """A language code as the catalogs name it (``de``, ``en_XA``), or None when it is not one of ours (a device's
    explicit choice: ``?lang=`` and the cookie name one of ours exactly, ``de-DE`` is not one)."""
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


def refusal_text(exc: BaseException) -> str:
    """A refusal in the current language: a message id with parameters where the refusal carries them
    (``msgid``, ``params``; a refused payload's ``parts``), else its English sentence looked up in the catalogs
    (any domain's), else as it is."""
    from flask_babel import gettext

    parts = getattr(exc, "parts", None)
    if parts:  # a refused payload's errors (webapp/game/core/validation.py), each said whole, its words too
        said = getattr(exc, "words", ())

        def word(v):  # a message id, or one with its own parameters (a damaged log's reason with the error's text)
            return gettext(v[0], **v[1]) if isinstance(v, tuple) else gettext(v)

        return "; ".join(gettext(msgid, **{k: word(v) if k in said else v for k, v in params.items()})
                         for msgid, params in parts)
    msgid = getattr(exc, "msgid", None)
    if msgid:  # a parameter that is the rules' words (a defense's label, the rules' reason), or a refusal itself
        # (a map file's reason inside "not imported: ..."), in the same language
        return gettext(msgid, **{k: refusal_text(v) if isinstance(v, BaseException) else words(v)
                                 for k, v in (getattr(exc, "params", None) or {}).items()})
    text = str(exc)
    return gettext(text) if text else text


def to_sender(exc: BaseException) -> str:
    """A refusal for the device that sent a Socket.IO event, in that device's language."""
    from flask_babel import force_locale

    with force_locale(device_language()):
        return refusal_text(exc)


def said_in(language: str | None, message: str, params: dict | None = None) -> str:
    """A message id (``N_``-marked) with its parameters in ``language``: a notice pushed to a connection, in
    the language of that connection's device (its handshake's), whoever caused it. Needs an app context (the
    hub's app gives one where there is none)."""
    from flask_babel import force_locale, gettext

    with force_locale(normalize(language) or "en"):
        return gettext(message, **(params or {}))


class _Reader(NamedTuple):
    """What a live update in one language is drawn with, made once per app and language (:func:`_reader`)."""
    language: str
    catalog: Any  #: Flask-Babel's merged catalog (all domains) for the rules' words; None in English or without it
    locale: Any  #: the ``babel.Locale`` Flask-Babel is told (None without Flask-Babel)
    jinja: dict | None  #: the templates' gettext callables in this language (None without Flask-Babel)


_speaking: ContextVar[_Reader | None] = ContextVar("tacmap_speaking", default=None)
_OURS = {code: code for code in CHOOSABLE}  #: codes already as the catalogs name them: no normalizing


def _ours(code: str | None) -> str | None:
    found = _OURS.get(code) if isinstance(code, str) else None
    if found is not None:
        return found
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
    reader = _speaking.get()
    return reader.language if reader is not None else request_language()


def _reader(language: str) -> _Reader:
    """The app's catalogs, locale and template callables for ``language`` (one of ours), made once per app: a
    live update is drawn once per audience and language, and Flask-Babel's lookup of the same catalog on every
    ``_()`` (the request's context, its locale parsed, its domain's cache) cost a fifth of a move (#32)."""
    if not has_app_context():
        return _Reader(language, None, None, None)
    app = current_app._get_current_object()
    readers = app.extensions.get("tacmap_readers")
    if readers is None:
        readers = app.extensions.setdefault("tacmap_readers", {})
    found = readers.get(language)
    if found is None:
        if "babel" in app.extensions:
            from babel import Locale
            from flask_babel import force_locale, get_domain

            with force_locale(language):
                tr = get_domain().get_translations()  # Flask-Babel's merged catalog, all domains: as its _() reads
            found = _Reader(language, None if language == speech.SOURCE else tr, Locale.parse(language),
                            _template_callables(tr))
        else:
            found = _Reader(language, None, None, None)
        readers[language] = found
    return found


def _template_callables(tr) -> dict | None:
    """The templates' ``gettext`` / ``ngettext`` / ``pgettext`` / ``npgettext`` from catalog ``tr``, as Flask-Babel
    installs them (newstyle: parameters by name, ``%`` formatting, ``Markup`` when autoescaping); ``gettext`` keeps
    what a message without parameters gave (a live update asks the same few dozen in every language it is drawn in)."""
    # Jinja's newstyle gettext callables (what its i18n extension installs) are not public API: a seam
    # (webapp/seams.py); without them the templates' ``_()`` is Flask-Babel's own, slower, the same words
    makers = seams.newstyle_gettext()
    if makers is None:
        return None
    from jinja2 import pass_context

    new_gettext, new_ngettext, new_pgettext, new_npgettext = makers
    plain = new_gettext(tr.ugettext)
    kept: dict = {}

    @pass_context
    def gettext(__context, __string, **variables):
        if variables:
            return plain(__context, __string, **variables)
        key = (__string, __context.eval_ctx.autoescape)
        found = kept.get(key)
        if found is None:
            found = plain(__context, __string)
            if len(kept) < KEPT_WORDS:
                kept[key] = found
        return found

    return {"gettext": gettext, "ngettext": new_ngettext(tr.ungettext),
            "pgettext": new_pgettext(tr.upgettext), "npgettext": new_npgettext(tr.unpgettext)}


KEPT_WORDS = 4096  #: messages kept per language (the templates have a few hundred; a computed one is not kept past it)


def template_words() -> dict | None:
    """The templates' ``gettext`` / ``ngettext`` (newstyle, as Flask-Babel installs them) in the reader's
    language, to be looked up before Jinja's globals (``render.flask_values``); None: Flask-Babel's own."""
    reader = _speaking.get()
    if reader is None:
        reader = _reader(request_language()) if _babel() else None
    return None if reader is None else reader.jinja


def text(message: str) -> str:
    """A message id of the pages' domain (a template's ``_()``; in Python marked ``N_``) in the reader's language
    (a live update's, else the request's): what a template's ``_()`` gives, for markup built in Python
    (``token_svg``)."""
    reader = _speaking.get()
    if reader is None and _babel():
        reader = _reader(request_language())
    if reader is None or reader.catalog is None:  # English (the message ids), or no catalogs
        return message
    return reader.catalog.ugettext(message)


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Draw in ``language`` (a live update for the readers of one language): the rules' words, and with
    Flask-Babel the templates' own words too (``template_words``), and anything else that asks Flask-Babel
    (its locale is set as ``flask_babel.force_locale`` sets it, with the Locale parsed once)."""
    reader = _reader(_ours(language) or speech.SOURCE)
    token = _speaking.set(reader)
    try:
        if reader.locale is None:
            yield reader.language
        else:  # flask_babel.force_locale's own steps, the Locale parsed once (a seam: webapp/seams.py)
            with seams.forced_locale(reader.locale):
                yield reader.language
    finally:
        _speaking.reset(token)


def _app_catalog(language: str):
    """Flask-Babel's merged catalog for ``language`` (all domains), when the app has Flask-Babel."""
    if language == speech.SOURCE or not _babel():
        return None
    return _reader(language).catalog


def words(value: Any, language: str | None = None) -> Any:
    """``value`` (rules' words, a list, or a dict of them: a result card) in ``language`` (default: the
    reader's); text that is not words stays as it is; the stored messages (``"_say"``) are left out."""
    reader = _speaking.get() if language is None else None
    if reader is not None:  # a live update: its language's catalog, found once
        return _deep(value, reader.language, reader.catalog)
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
