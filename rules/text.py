"""Words the rules say to people, as message ids with their parameters (issue #37: the log per reader).

``say("{attacker} hits {target}", attacker=a.name, target=t.name)`` is a :class:`Say`: a ``str`` holding the
English (so code and tests that read the English keep working), that also carries its message id and its
parameters, so a reader's page renders it in their language (:meth:`Say.translate`). ``say_n`` is the
plural form (``say_n("{n} Wound", "{n} Wounds", n)``); ``say_p`` gives a word its message context where the same
English means two things (``say_p("range band", "medium")`` beside a cover grade's ``say("medium")``: Spanish
*medio* and *media*), gettext's ``pgettext``. A parameter that is itself words (a wound level, an
option's name) is a ``Say`` too, translated with it; names, numbers and rolls are kept as they are.

Stored, a ``Say`` is ``{"msg", "args"}`` (``"plural"`` and ``"n"`` for a plural, ``"ctx"`` for a context): :func:`pack`,
:func:`unpack`. An event's data and a log line's details keep their English text where they always had it
(old readers, archives) and hold the packed messages beside it under ``"_say"`` (:func:`settle` does both
ways), so an old game's English stays readable and a new one's is read in any language.

Pure: no babel and no Flask here; whoever translates passes the gettext functions in. The babel extraction
keywords (``say``, ``say_n:1,2``, ``say_p:1c,2``) are in translations/rules.cfg.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from string import Formatter
from typing import Any, Protocol

SAY_KEY = "_say"  #: where a dict keeps the packed messages of its values (see :func:`settle`)


class Catalog(Protocol):
    """What :meth:`Say.translate` needs: babel's ``support.Translations`` or Flask-Babel's functions."""

    def gettext(self, message: str) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int) -> str: ...

    # and, for words with a context, ``pgettext(context, message)`` where the catalog has it (babel's has)


_FORMATTER = Formatter()


def fields(template: str) -> set[str]:
    """The parameter names ``template`` reads (``{target}`` -> ``target``)."""
    found = set()
    for _text, name, _spec, _conv in _FORMATTER.parse(template):
        if name is not None:
            found.add(name.split(".")[0].split("[")[0])
    return found


class Say(str):
    """Words from the rules: English as a ``str``, and ``msg``/``args`` (``plural``/``n``, ``context``) to
    translate it."""

    msg: str
    args: dict[str, Any]
    plural: str | None
    n: int | None
    context: str | None

    def __new__(cls, msg: str, args: dict[str, Any] | None = None, plural: str | None = None,
                n: int | None = None, context: str | None = None) -> "Say":
        args = dict(args or {})
        template = msg if plural is None or n == 1 else plural
        self = super().__new__(cls, _fill(template, args, str, n))
        self.msg, self.args, self.plural, self.n, self.context = msg, args, plural, n, context
        return self

    def translate(self, catalog: Catalog | None, number: Callable[[Any], str] | None = None) -> str:
        """These words in ``catalog``'s language (English without one); ``number`` writes a number as the
        language does (babel's ``format_decimal``). A translation that does not fit its parameters (a
        catalog's mistake) gives the English, never an error."""
        if catalog is None:
            return str(self)
        if isinstance(catalog, dict):  # str.translate's table (re.escape calls it): the English text's characters
            return str.translate(str(self), catalog)
        if self.context is not None and hasattr(catalog, "pgettext"):  # (a plural never takes a context here)
            template = catalog.pgettext(self.context, self.msg)
        elif self.plural is None:
            template = catalog.gettext(self.msg)
        else:
            template = catalog.ngettext(self.msg, self.plural, self.n)

        def each(value: Any) -> Any:
            return translate(value, catalog, number)

        try:
            try:
                return _fill(template, self.args, each, self.n, number)
            except ValueError:  # a format spec ({x:.1f}) wants the number itself, not the language's text of it
                return _fill(template, self.args, each, self.n)
        except Exception:  # a catalog's mistake or a number its language cannot write: the line stays readable
            return str(self)

    def map_args(self, fn: Callable[[str], str]) -> "Say":
        """These words with ``fn`` applied to every parameter that is plain text (not words), nested ones too:
        ids put as names (``webapp.game.combat.named``)."""
        def each(value: Any) -> Any:
            if isinstance(value, Say):
                return value.map_args(fn)
            if isinstance(value, str):
                return fn(value)
            if isinstance(value, list):
                return [each(v) for v in value]
            return value
        return Say(self.msg, {k: each(v) for k, v in self.args.items()}, self.plural, self.n, self.context)

    def pack(self) -> dict:
        out: dict[str, Any] = {"msg": self.msg, "args": {k: pack(v) for k, v in self.args.items()}}
        if self.plural is not None:
            out["plural"], out["n"] = self.plural, self.n
        if self.context is not None:
            out["ctx"] = self.context
        return out

    def __reduce__(self):  # pickle keeps it a Say
        return (Say, (self.msg, self.args, self.plural, self.n, self.context))

    # words are values, never changed in place (map_args makes new ones): a copy is the same words. Without these,
    # copy.deepcopy (a game's backup, dataclasses.asdict) went through __reduce__, filling the template again:
    # most of the time of copying a log of attack lines
    def __copy__(self) -> "Say":
        return self

    def __deepcopy__(self, memo: dict) -> "Say":
        return self

    def __repr__(self) -> str:
        return f"say({str.__repr__(self)})"


def _fill(template: str, args: dict, each: Callable[[Any], Any], n: int | None,
          number: Callable[[Any], str] | None = None) -> str:
    values = {k: each(v) for k, v in args.items()}
    if n is not None and "n" not in values:
        values["n"] = n
    if number is not None:
        values = {k: (number(v) if isinstance(v, float) else v) for k, v in values.items()}  # 2.5 -> "2,5"
    return template.format_map(values)


def whole(x: Any) -> Any:
    """A number as a line shows it: a whole float as an int (``2.0`` -> ``2``, as ``{x:g}`` wrote it), the rest
    as it is (a float is written as the reader's language writes it when the line is translated)."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def say(msg: str, /, **args: Any) -> Say:
    """Words for people: ``msg`` a message id in English with ``{name}`` placeholders, ``args`` its values."""
    if not args:  # words without parameters are one value each (a Say is never changed): made once
        return _plain(msg)
    return Say(msg, args)


@functools.lru_cache(maxsize=4096)
def _plain(msg: str) -> Say:
    """``msg``'s words without parameters, made once: the rules say the same labels at every call (an attack's
    options, a die's purpose), thousands of times in a forecast (#68)."""
    return Say(msg)


def say_n(singular: str, plural: str, n: int, /, **args: Any) -> Say:
    """Words with a count: ``singular`` when ``n`` is 1 (in English), else ``plural``; ``{n}`` is the count."""
    return Say(singular, args, plural, int(n))


def say_p(context: str, msg: str, /, **args: Any) -> Say:
    """Words whose English means more than one thing, told apart by ``context`` (gettext's message context):
    ``say_p("range band", "medium")`` is *medio* in Spanish ("alcance: medio"), the cover grade ``say("medium")``
    *media* ("cobertura media")."""
    return Say(msg, args, context=context)


def said(exc: BaseException) -> Any:
    """The words an exception was raised with: its ``Say`` (to be said in the reader's language where it is
    shown, ``RuleError(say(...))``), else its text."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, Say) else str(exc)


def joined(parts: Iterable[Any], sep: str = "; ") -> Say:
    """Words one after the other, each translated in its place: ``joined([say(...), say(...)], ", ")``."""
    items = list(parts)
    glue = sep.replace("{", "{{").replace("}", "}}")
    return Say(glue.join(f"{{p{i}}}" for i in range(len(items))), {f"p{i}": v for i, v in enumerate(items)})


def translate(value: Any, catalog: Catalog | None, number: Callable[[Any], str] | None = None) -> Any:
    """``value`` for a reader: a :class:`Say` translated, a list's or tuple's items each; anything else as is."""
    if isinstance(value, Say):
        return value.translate(catalog, number)
    if isinstance(value, (list, tuple)):
        return [translate(v, catalog, number) for v in value]
    return value


# --- stored ----------------------------------------------------------------------------------------------


def pack(value: Any) -> Any:
    """A value as JSON keeps it: a Say as ``{"msg", "args"...}``, lists item by item, the rest as is."""
    if isinstance(value, Say):
        return value.pack()
    if isinstance(value, (list, tuple)):
        return [pack(v) for v in value]
    return value


def is_packed(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("msg"), str) and isinstance(value.get("args"), dict)
            and set(value) <= {"msg", "args", "plural", "n", "ctx"})


def unpack(value: Any) -> Any:
    """What :func:`pack` made, back: ``{"msg", "args"}`` a Say (its args unpacked too), lists item by item."""
    if is_packed(value):
        n, ctx = value.get("n"), value.get("ctx")
        return Say(value["msg"], {k: unpack(v) for k, v in value["args"].items()}, value.get("plural"),
                   n if isinstance(n, int) else None, ctx if isinstance(ctx, str) else None)
    if isinstance(value, list):
        return [unpack(v) for v in value]
    return value


class Plain(list):
    """A list known to hold no words (a board's walls, doors and cells: numbers and ids): ``settle`` does not walk
    it, so an event with a big map's data (#69) is settled in the time of its few words, not of its 40,000 walls."""

    __slots__ = ()


def _has_say(value: Any) -> bool:
    return isinstance(value, Say) or (isinstance(value, (list, tuple)) and not isinstance(value, Plain)
                                      and any(isinstance(v, Say) for v in value))


def settle(data: Any) -> Any:
    """Make ``data`` (an event's data, a log line's details: dicts and lists, changed in place) hold its words
    both ways: each dict with a Say among its values (or a list of them) keeps the packed message under
    ``"_say"`` beside the English, which JSON keeps; each dict read back with ``"_say"`` gets its Says again
    in place of the plain English. Returns ``data``."""
    return _walk(data, pack_too=True)


def revive(data: Any, at_most: int | None = None) -> Any:
    """:func:`settle` for data read back from JSON (an event's from the log): it holds no Say yet, so there is
    nothing to pack; each dict with ``"_say"`` only gets its Says again in place of the plain English.
    ``at_most``: how many dicts can hold ``"_say"`` (its count in the JSON text): the walk stops once it found
    them all (a long event's packed words usually sit near its top, its bulk below needs no walk)."""
    return _walk(data, pack_too=False, at_most=at_most)


def _walk(data: Any, pack_too: bool, at_most: int | None = None) -> Any:
    stack = [data]
    left = -1 if at_most is None or pack_too else at_most
    while stack and left:
        value = stack.pop()
        if isinstance(value, dict):
            stored = value.get(SAY_KEY)
            if isinstance(stored, dict):
                left -= 1
                for key, packed in stored.items():
                    if key in value and not _has_say(value[key]):
                        try:
                            value[key] = unpack(packed)
                        except (KeyError, IndexError, ValueError, AttributeError, TypeError):
                            pass  # a damaged record: the English stays
            if pack_too:  # one pass over the values: the words to pack, the dicts and lists to walk
                said = None
                for k, v in value.items():
                    if k == SAY_KEY:
                        continue
                    if isinstance(v, Say):
                        said = said or {}
                        said[k] = v.pack()
                    elif isinstance(v, Plain):  # numbers and ids only (a board's walls): not walked
                        continue
                    elif isinstance(v, (list, tuple)):
                        if any(isinstance(item, Say) for item in v):
                            said = said or {}
                            said[k] = pack(v)
                        if isinstance(v, list):
                            stack.append(v)
                    elif isinstance(v, dict):
                        stack.append(v)
                if said:
                    value[SAY_KEY] = {**(stored if isinstance(stored, dict) else {}), **said}
            else:
                stack.extend(v for k, v in value.items() if k != SAY_KEY and isinstance(v, (dict, list))
                             and not isinstance(v, Plain))
        elif isinstance(value, list) and not isinstance(value, Plain):
            stack.extend(v for v in value if isinstance(v, (dict, list)))
    return data


def plain(data: Any) -> Any:
    """``data`` without the packed messages (``"_say"``): what a client is shown of an event's data."""
    if isinstance(data, dict):
        return {k: plain(v) for k, v in data.items() if k != SAY_KEY}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
