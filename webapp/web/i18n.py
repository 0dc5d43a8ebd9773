"""Languages (issue #37): Flask-Babel set up, which language a request gets, the catalogs compiled, the
pseudo-locale made, the JavaScript's own strings served, and the language the console speaks.

Catalogs: ``translations/<domain>.pot`` and ``translations/<lang>/LC_MESSAGES/<domain>.po``, one domain per
owner (``messages``: the pages, refusals, scripts and console; ``rules``: the rule engines' words and the log;
``help``: the help pages and sheets). At run time the domains are merged into one catalog, so ``gettext`` and
Jinja's ``{% trans %}`` / ``_()`` find a message id of any domain. The ``.mo`` files are not in git: they are
compiled here when missing or older than their ``.po`` (and by ``scripts/i18n compile``); the pseudo-locale
``en_XA`` (accented, about 35 % longer, in [ ]) is made from the ``.pot`` files, never written by hand.

A request's language: ``?lang=xx`` (kept in the ``lang`` cookie for a year) wins, then the cookie, then the
browser's Accept-Language among English, German, French and Spanish (the pseudo-locale only when asked for by
name), then English. The table screen speaks what the GM chose for it (``screenview.screen_language``).
"""

from __future__ import annotations

import json
import locale as system_locale
import math
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Blueprint, Flask, Response, g, has_request_context, request, url_for
from flask_babel import Babel, get_locale

from .. import seams
from ..live.screens.language import COOKIE, LANGUAGES, PSEUDO, device_language, from_accept_language, normalize  # noqa: F401
from .assets import asset_dir

TRANSLATIONS = asset_dir("translations")
CHOOSABLE = LANGUAGES + (PSEUDO,)  #: en, de, fr, es (English is the source), and the pseudo-locale
#: each language's own name, as the chooser shows it (never translated: a reader finds their own)
NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", PSEUDO: "[Ƥšéûðö]"}
COOKIE_AGE = 365 * 24 * 3600
JS_KEYWORDS = ("t", "tn:1,2")  #: static/js's gettext: t("text", {name: ...}) and tn("one", "many", n, {...})

# Babel knows no en_XA (CLDR's pseudo-locales are not shipped): English's data under that name (a seam)
seams.add_locale(PSEUDO, like="en")

bp = Blueprint("i18n", __name__)


# --- the catalogs -------------------------------------------------------------------------------------------

def domains(folder: Path = TRANSLATIONS) -> list[str]:
    """Every domain that has an extraction config (translations/<domain>.cfg), ``messages`` first."""
    found = sorted(p.stem for p in folder.glob("*.cfg"))
    return sorted(found, key=lambda d: d != "messages")


def languages(folder: Path = TRANSLATIONS) -> list[str]:
    """The translated languages with a catalog folder (not the pseudo-locale)."""
    return sorted(p.name for p in folder.iterdir() if (p / "LC_MESSAGES").is_dir() and p.name != PSEUDO) \
        if folder.is_dir() else []


_PLACEHOLDER = re.compile(r"%\([^)]+\)[sdifr]|%[sdifr%]|\{[^{}]*\}|<[^>]*>|&#?\w+;|\\n")
#: a placeholder the message's values go into: marked ⟦ ⟧ in the pseudo-locale, so a test sees each value said
#: inside a translated sentence on its own (data, or itself translated: not English hidden in a translation)
_VALUE = re.compile(r"%\([^)]+\)[sdifr]|%[sdifr]|\{[^{}]*\}")
_ACCENTED = str.maketrans("aAcCeEgGiIkKlLnNoOrRsSuUwWyYzZ", "áÅçÇéÉĝĜîÎķĶłŁñÑöÖŕŔšŠüÜŵŴýÝžŽ")


def pseudo(text: str) -> str:
    """The pseudo-locale's version of a message: its letters accented, about 35 % longer, in [ ]; its tags and
    entities kept as they are, its placeholders (%(name)s, {name}) kept and marked ⟦ ⟧ (outside a tag)."""
    if not text:
        return text
    out, last = [], 0
    for m in _PLACEHOLDER.finditer(text):
        out.append(text[last:m.start()].translate(_ACCENTED))
        out.append(f"⟦{m.group(0)}⟧" if _VALUE.fullmatch(m.group(0)) else m.group(0))
        last = m.end()
    out.append(text[last:].translate(_ACCENTED))
    body = "".join(out)
    lead = len(body) - len(body.lstrip())
    trail = len(body) - len(body.rstrip())
    core = body.strip()
    pad = "·" * max(1, math.ceil(len(core) * 0.35))
    return f"{body[:lead]}[{core} {pad}]{body[len(body) - trail:] if trail else ''}"


def pseudo_catalog(pot: Catalog) -> Catalog:
    """The en_XA catalog of a template: every message pseudo-translated."""
    cat = Catalog(locale=PSEUDO, domain=pot.domain, project="tacmap", charset="utf-8")
    for msg in pot:
        if not msg.id:
            continue
        if msg.pluralizable:
            cat.add(msg.id, (pseudo(msg.id[0]), pseudo(msg.id[1])), context=msg.context)
        else:
            cat.add(msg.id, pseudo(msg.id), context=msg.context)
    return cat


def _write_atomic(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".mo")
    try:
        with os.fdopen(fd, "wb") as f:
            write_mo(f, catalog)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)  # several processes (tests, scale-out) may compile at once: never a half file
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stale(target: Path, source: Path) -> bool:
    return not target.exists() or target.stat().st_mtime < source.stat().st_mtime


def compile_catalogs(source: Path = TRANSLATIONS, out: Path | None = None, force: bool = False) -> list[Path]:
    """Compile every ``.po`` to its ``.mo`` (into ``out``, default beside it) when missing or older, and make the
    pseudo-locale's ``.mo`` from each ``.pot``. Returns the files written."""
    out = out or source
    written = []
    for domain in domains(source):
        for lang in languages(source):
            po = source / lang / "LC_MESSAGES" / f"{domain}.po"
            mo = out / lang / "LC_MESSAGES" / f"{domain}.mo"
            if po.exists() and (force or _stale(mo, po)):
                with po.open("rb") as f:
                    _write_atomic(mo, read_po(f, locale=lang, domain=domain))
                written.append(mo)
        pot = source / f"{domain}.pot"
        mo = out / PSEUDO / "LC_MESSAGES" / f"{domain}.mo"
        # made by pseudo() from the .pot: made again when either changes
        if pot.exists() and (force or _stale(mo, pot) or _stale(mo, Path(__file__))):
            with pot.open("rb") as f:
                _write_atomic(mo, pseudo_catalog(read_po(f, domain=domain)))
            written.append(mo)
    return written


def compiled_dir(data_dir: Path | None = None) -> Path:
    """Where the compiled catalogs are: beside the ``.po`` files (a checkout), or, where that folder cannot be
    written (an installed package in a system folder), the data folder's ``translations``."""
    try:
        compile_catalogs(TRANSLATIONS)
        return TRANSLATIONS
    except OSError:
        if data_dir is None:
            raise
        out = Path(data_dir) / "translations"
        compile_catalogs(TRANSLATIONS, out)
        return out


# --- which language ----------------------------------------------------------------------------------------

def select_locale() -> str:
    """Flask-Babel's locale selector. A page that speaks for someone else (the table screen: the GM's choice)
    sets ``g.tacmap_language`` (``speak``). Socket.IO's handlers run in the request context of the connection's
    handshake: there the live code says the language itself (``flask_babel.force_locale``), as what it renders
    goes to a whole audience, not to the device that sent the command; unsaid, English."""
    chosen = g.get("tacmap_language")
    if chosen:
        return chosen
    if has_request_context() and not request.path.startswith("/socket.io"):
        return device_language()
    return "en"


def speak(language: str | None) -> None:
    """This request answers in ``language`` (None: as its device chose)."""
    if language:
        g.tacmap_language = language
        seams.forget_locale()  # anything already looked up for the device's language goes


def current_language() -> str:
    loc = get_locale()
    return str(loc) if loc else "en"


@lru_cache(maxsize=16)
def _number_locale(language: str) -> Locale:
    try:
        return Locale.parse(language)
    except (ValueError, TypeError, LookupError):  # the pseudo-locale: written as English
        return Locale.parse("en")


def _reader_locale() -> Locale:
    """The locale numbers are written in: the reader's (a live update's language, a socket's device, a page's
    choice; Flask-Babel's own locale is English on a socket on purpose, see ``language.request_language``)."""
    from ..live.screens.language import reader_language

    return _number_locale(reader_language() or "en")


def decimal_text(value: float, places: int = 0) -> str:
    """A number with ``places`` decimals as Python rounds it ("%.1f", the figures the tests compute too), with
    the reader's decimal sign: 45.3 in English, 45,3 in German and French."""
    from babel.numbers import get_decimal_symbol

    return ("%.*f" % (places, value)).replace(".", get_decimal_symbol(_reader_locale()))


def percent_text(fraction: float, places: int = 0) -> str:
    """A share (0.753) as a percentage the reader's language writes (#58): "75.3%" in English, "75,3 %" in German,
    French and Spanish (the locale's percent pattern around :func:`decimal_text`'s figures)."""
    locale = _reader_locale()
    pattern = locale.percent_formats[None]
    sign = locale.number_symbols.get("latn", locale.number_symbols).get("percentSign", "%")
    return (pattern.prefix[0].replace("%", sign) + decimal_text(fraction * 100, places)
            + pattern.suffix[0].replace("%", sign))


def lang_url(code: str) -> str:
    """This page's address in another language (``?lang=``, kept with the page's other arguments)."""
    if not has_request_context() or request.endpoint is None:
        return f"?lang={code}"
    args = request.args.to_dict()
    args["lang"] = code
    return url_for(request.endpoint, **{**(request.view_args or {}), **args})


def _remember_choice(response: Response) -> Response:
    chosen = normalize(request.args.get("lang"))
    if chosen and request.cookies.get(COOKIE) != chosen and not request.path.startswith("/i18n/"):
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_AGE, samesite="Lax", httponly=False)
    return response


# --- the JavaScript's strings ------------------------------------------------------------------------------

@lru_cache(maxsize=4)
def _js_messages(pot_path: str, mtime: float) -> tuple:
    """The message ids the scripts use (the .pot's entries found in static/js)."""
    with open(pot_path, "rb") as f:
        pot = read_po(f)
    return tuple(m.id for m in pot if m.id and any(loc.startswith("static/js/") for loc, _ in m.locations))


def js_catalog(language: str) -> dict:
    """{msgid: text} and {msgid: [forms]} for the scripts, in ``language`` (the current request's translations)."""
    from flask_babel import get_translations

    pot = TRANSLATIONS / "messages.pot"
    ids = _js_messages(str(pot), pot.stat().st_mtime) if pot.exists() else ()
    tr = get_translations()
    texts, plurals = {}, {}
    for msgid in ids:
        if isinstance(msgid, tuple):
            plurals[msgid[0]] = [tr.ngettext(msgid[0], msgid[1], n) for n in (1, 2, 5)]
        else:
            texts[msgid] = tr.gettext(msgid)
    loc = Locale.parse(language)
    return {"lang": language, "texts": texts, "plurals": plurals, "decimal": loc.number_symbols.get("latn", {}).get("decimal", ".")}


@bp.get("/i18n/<lang>.js")
def script_catalog(lang: str):
    """The scripts' catalog for a language, as a script that sets ``window.TACMAP_I18N`` (the page loads it
    before its own scripts; a script file, as the Content-Security-Policy allows no inline script)."""
    language = normalize(lang)
    if language is None:
        return Response("unknown language", 404, mimetype="text/plain")
    speak(language)
    body = "window.TACMAP_I18N = " + json.dumps(js_catalog(language), ensure_ascii=False, sort_keys=True) + ";\n"
    resp = Response(body, mimetype="text/javascript")
    resp.cache_control.max_age = 300
    return resp


# --- the console -------------------------------------------------------------------------------------------

def system_language(environ=os.environ) -> str:
    """The console's language: LC_ALL, LC_MESSAGES, LANG (or LANGUAGE's first) as POSIX says; on Windows the
    user's locale (locale.getlocale()). English when it has no catalog."""
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(var)
        if value:
            for part in value.split(":"):
                code = normalize(part.split(".")[0].split("@")[0]) or normalize(part.split("_")[0])
                if code:
                    return code
            if var != "LANGUAGE":
                return "en"  # C, POSIX or a language we lack
    try:
        name = system_locale.getlocale()[0] or ""
    except ValueError:
        name = ""
    if name:  # Windows: "German_Germany" or "de_DE"
        try:
            return normalize(str(Locale.parse(name.split(".")[0])).split("_")[0]) or "en"
        except (ValueError, LookupError):
            lower = name.lower()
            for lang in LANGUAGES:
                if lower.startswith(Locale.parse(lang).english_name.lower()):
                    return lang
    return "en"


def console_translations(language: str | None = None, folder: Path | None = None):
    """A gettext translations object for the console (outside any request)."""
    from babel.support import Translations

    language = language or system_language()
    folder = folder or TRANSLATIONS
    merged = Translations()
    for domain in domains(folder):
        merged.merge(Translations.load(str(folder), [language], domain))
    return merged


# --- the app -----------------------------------------------------------------------------------------------

def init_app(app: Flask, data_dir: Path | None = None) -> None:
    folder = compiled_dir(data_dir)
    names = domains(TRANSLATIONS) or ["messages"]
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", ";".join([str(folder)] * len(names)))
    app.config.setdefault("BABEL_DOMAIN", ";".join(names))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    Babel(app, locale_selector=select_locale)
    from flask_babel import format_decimal

    app.jinja_env.globals["format_decimal"] = format_decimal  # numbers shown as text, by locale
    # {{ (p * 100)|decimal_text(1) }}: 45.3 in English, 45,3 in German (the odds, a chance to hit)
    app.jinja_env.filters["decimal_text"] = decimal_text
    app.jinja_env.filters["percent_text"] = percent_text  # {{ p|percent_text(1) }}: 45.3% / 45,3 % (#58)
    app.after_request(_remember_choice)
    app.register_blueprint(bp)

    @app.context_processor
    def languages_context():
        lang = current_language()
        return {"lang": lang, "html_lang": lang.replace("_", "-"), "lang_url": lang_url,
                "language_names": [(code, NAMES[code]) for code in LANGUAGES]
                + ([(PSEUDO, NAMES[PSEUDO])] if lang == PSEUDO else [])}
