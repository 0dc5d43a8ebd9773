"""The rules' words in a reader's language (issue #37): the ``rules`` catalogs, and a value translated.

The rules and the log keep their words as message ids (``rules.text.Say``); a page or a live update is drawn
in its reader's language by :func:`words`, with the catalog of that language: Flask-Babel's merged one once
the app has it (``webapp.live.screens.language`` passes it in), else the ``rules`` domain read here from
``translations/<lang>/LC_MESSAGES/rules.po`` (its ``.mo`` when compiled and newer). English is the source:
no catalog. A language with no catalog reads English.

Pure: babel only (no Flask).
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from rules.text import Catalog, translate

DOMAIN = "rules"
#: the catalogs: a checkout's translations/, or an installed package's webapp/_translations (pyproject.toml)
TRANSLATIONS = next((p for p in (Path(__file__).resolve().parents[3] / "translations",
                                 Path(__file__).resolve().parents[2] / "_translations") if p.is_dir()),
                    Path(__file__).resolve().parents[3] / "translations")
SOURCE = "en"
_lock = threading.Lock()


def normalize(language: str | None) -> str:
    """A language code as the catalogs are named (``de``, ``en_XA``): ``de-DE`` -> ``de``; English if none."""
    if not language:
        return SOURCE
    code = str(language).replace("-", "_")
    base, _, region = code.partition("_")
    if region.upper() == "XA":
        return f"{base.lower()}_XA"
    return base.lower()[:8] or SOURCE


@lru_cache(maxsize=32)
def _load(language: str, folder: str, stamp: float) -> Translations | NullTranslations:
    po = Path(folder) / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= stamp:
        with mo.open("rb") as f:
            return Translations(f, domain=DOMAIN)
    if not po.exists():
        return NullTranslations()
    with po.open("rb") as f:
        catalog = read_po(f, locale=language, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def catalog(language: str | None, folder: Path = TRANSLATIONS) -> Catalog | None:
    """The ``rules`` catalog of ``language`` (None for English: the words are their own message ids)."""
    language = normalize(language)
    if language == SOURCE:
        return None
    po = folder / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    stamp = po.stat().st_mtime if po.exists() else 0.0
    with _lock:
        return _load(language, str(folder), stamp)


@lru_cache(maxsize=32)
def _locale(language: str) -> Locale | None:
    try:
        return Locale.parse(language if not language.endswith("_XA") else "en")
    except (UnknownLocaleError, ValueError):
        return None


def number_writer(language: str | None):
    """How ``language`` writes a number given as a parameter (``2.5`` -> ``2,5`` in German); None: as Python."""
    locale = _locale(normalize(language))
    if locale is None or normalize(language) == SOURCE:
        return None

    def write(value: Any) -> str:
        if isinstance(value, int):
            return str(value)  # whole numbers as they are: a die's face, a square's x, a seq (never "1.234")
        try:
            return format_decimal(value, locale=locale)
        except (ArithmeticError, ValueError, OverflowError):  # a number past what Babel writes (1e25): as Python does
            return str(value)

    return write


def words(value: Any, language: str | None, found: Catalog | None = None) -> Any:
    """``value`` for a reader of ``language``: a ``Say`` (or a list of them) translated with ``found`` (the
    app's merged catalog) or this module's ``rules`` catalog; text that is not words (a name, an old
    game's English line) as it is."""
    language = normalize(language)
    if language == SOURCE:
        return translate(value, None)
    return translate(value, found if found is not None else catalog(language), number_writer(language))


def extract(fileobj, keywords, comment_tags, options):
    """Babel's extractor for the ``rules`` domain (translations/rules.cfg): the Python extractor, taking
    ``say``, ``say_n`` and ``say_p`` (words with a context) only, so a ``_()`` of another domain's in the same
    file stays that domain's."""
    from babel.messages.extract import extract_python

    yield from extract_python(fileobj, [k for k in keywords if k in ("say", "say_n", "say_p")], comment_tags, options)
