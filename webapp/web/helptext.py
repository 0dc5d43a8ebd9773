"""The help domain's text that the rules hand over as data rather than a template writes (issue #37): the sheet
editor's field labels, hints, groups and choice labels (each system's ``sheet_fields()``), the names a sheet
shows for its keys and entries (Savage Worlds' skills, and the Edges its rules read), each system's dark-vision and dim-light reading
(``rules.lighting``) and the 3d6 system's readings table.

Babel extracts them from the rules themselves (``extract``, the method translations/help.cfg names), so the
catalog cannot drift from the code; a page looks each one up as it is drawn: a template with
``_(text|rule_msgid)|as_text`` (every message there is %-formatted, so a "%" is written "%%"; the rules' text is
text, escaped as before), Python with ``translate(text)``."""

from __future__ import annotations

from collections.abc import Iterator

from flask import current_app, has_app_context

import rules
from rules import lighting


def _sheet_texts(system) -> Iterator[str]:
    """A system's sheet fields' words: labels, hints, groups, choice labels (a value shown as itself is no text)."""
    if not hasattr(system, "sheet_fields"):
        return
    for spec in system.sheet_fields():
        for part in (spec, *spec.columns):
            yield from (part.label, part.help, part.group)
            yield from (choice[1] for choice in part.choices if isinstance(choice, tuple))
        if system.id == "savage_worlds" and spec.key == "skills":  # the sheet shows a skill's key title-cased
            yield from (str(name).title() for col in spec.columns for name in col.suggestions)
        if system.id == "savage_worlds" and spec.key in ("edges", "hindrances"):  # the rules' Edges, by name
            yield from (str(name) for col in spec.columns for name in col.suggestions)


def rule_texts() -> list[str]:
    """Every text of the help domain the rules hold, each once, in a stable order."""
    found: dict[str, None] = {}
    for system in rules.systems():
        for text in _sheet_texts(system):
            found.setdefault(text, None)
        for _title, reading, *_ in getattr(system, "readings", ()):
            found.setdefault(_title, None)
            found.setdefault(reading, None)
    for vision in (*lighting.DARK_VISION.values(), lighting.UNKNOWN):
        found.setdefault(vision.dark, None)
        found.setdefault(vision.dim, None)
    return [t for t in found if t and t.strip()]


def rule_msgid(text: str) -> str:
    """The message id of a rules text: as written, but "%" doubled, as newstyle gettext reads every message."""
    return text.replace("%", "%%")


def as_text(said) -> str:
    """A rules text as Jinja's gettext hands it back (Markup: a template's own message may hold tags) made plain
    text again, so the page escapes it as it escaped the rules' text before (an "&" in a title, a sheet's key)."""
    return str(said)  # str() of Markup: the same characters as a plain str, which autoescaping escapes


def extract(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel's extraction method for translations/help.cfg: the rules' texts above, once (for the one file the
    config points it at), each with a comment saying where it comes from."""
    for text in rule_texts():
        yield 1, None, rule_msgid(text), ["the rules' own text (webapp/web/helptext.py)"]


def install(env):
    """What the help pages and sheets need of a Jinja environment: gettext (``{% trans %}``, ``_()``; English
    where no catalog is installed yet: Flask-Babel, set up after, replaces it with the catalogs) and the filters
    above. The app's (webapp/web/help.py) and a test's own environment alike; returns ``env``."""
    env.filters["rule_msgid"], env.filters["as_text"] = rule_msgid, as_text
    from ..live.screens import language

    from .i18n import decimal_text, percent_text

    env.filters.setdefault("words", language.words)  # the rules' words (a system's name) in the reader's language
    # a sheet's numbers in the reader's language (45.3% / 45,3 %: the Atomic Tomorrow sheet's percentages)
    env.filters.setdefault("decimal_text", decimal_text)
    env.filters.setdefault("percent_text", percent_text)
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
        env.install_null_translations(newstyle=True)  # newstyle, as Flask-Babel's: the same msgids
    return env


def say(msgid: str, **params) -> str:
    """A message of the help domain in the request's language, its %(name)s filled from ``params``:
    Flask-Babel's catalog once the app has one, else the message as written."""
    if has_app_context() and "babel" in current_app.extensions:
        from flask_babel import gettext

        return gettext(msgid, **params)
    return msgid % params if params else msgid


def translate(text: str) -> str:
    """A rules text (a sheet field's label, a reading) in the request's language, from Python."""
    return say(rule_msgid(text)).replace("%%", "%") if text else text
