"""The sheet editor's form, built from the system's ``SheetField`` descriptions alone: a sheet shown as
form fields, and a posted form read back into sheet values.

Pure Python (no Flask): the page handler hands in the posted form, the tests hand in the pairs a
browser would post. The round trip is exact: a form posted as it was shown reads back as no change,
whatever the sheet holds. Three rules make it so:

- a field or a cell posted with the text it was shown with keeps its stored value (a number the JSON
  API stored as text, a flag stored as 1, a table the rules also take as a list...);
- an entry's keys that no column shows are carried over from the entry it was shown from (``_from``);
- a field the sheet leaves out is shown with its default, and posting that default is no change.

Form names: a field by its key (``attributes.agility``); a row's cell as ``key[row][column]`` (``row``
a number; the page's script numbers the rows it adds); ``key[row][_from]`` the position of the entry a
row was shown from. A yes/no field posts a hidden ``false`` before its box's ``true``, and a field of
rows or of ticks a hidden empty value, so a form that leaves a field out (a GM-only field shown to a
player, an older page) changes nothing there.

Each field also posts ``_was.key``, a digest of what it showed: a field sent back as it was shown is
left alone even when the sheet changed in the meantime (the wounds a fight dealt while the editor was
open stay; only what was typed is saved).

Words: the fields' labels, hints and choices are the rules' own text, and a refusal is the form's (here and in
webapp/web/sheet/sheetreading.py); both are shown through ``words`` (an object with ``translate(text)`` for a rules
text and ``say(msgid, **params)`` for a message of the form, marked ``N_``): the page hands in
webapp.web.helptext, whose catalog is the "help" domain; the default is English as written.

This module holds the form itself: its pairs, a value shown as text and a text read as a value, the sheet's
values as the form sees them, and the pairs a sheet shows (``form_of``). The page's views of the fields are
webapp/web/sheet/sheetviews.py; reading a posted form back into changes is webapp/web/sheet/sheetreading.py.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.system import SheetField

ROW_NAME = re.compile(r"^(?P<key>[^\[\]]+)\[(?P<row>\d+)\]\[(?P<col>\w+)\]$")
INT_TEXT = re.compile(r"^[+-]?\d{1,15}$")  # a whole number a sheet can hold (not a 5,000-digit one)
#: the HTML number input's grammar (a "valid floating-point number"): other text is shown in a text box
NUMBER_TEXT = re.compile(r"^-?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$")
MAX_ROWS = 200


def N_(msgid: str) -> str:
    """A message of the form (here and in webapp/web/sheet/sheetreading.py), marked for the "help" catalog
    (translations/help.cfg); said through ``words``."""
    return msgid


class AsWritten:
    """The words of the fields and refusals as written (English): no catalog."""

    @staticmethod
    def translate(text: str) -> str:
        return text

    @staticmethod
    def say(msgid: str, **params) -> str:
        return msgid % params if params else msgid


AS_WRITTEN = AsWritten()


class Form:
    """The pairs of a posted form, in their order: what ``read`` takes (a Werkzeug MultiDict's
    ``items(multi=True)``, or the pairs a test builds)."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self.pairs = [(str(k), str(v)) for k, v in pairs]
        self._by: dict[str, list[str]] = {}
        for k, v in self.pairs:
            self._by.setdefault(k, []).append(v)

    def getlist(self, name: str) -> list[str]:
        return list(self._by.get(name, ()))

    def get(self, name: str, default: str | None = None) -> str | None:
        values = self._by.get(name)
        return values[0] if values else default

    def __contains__(self, name: str) -> bool:
        return name in self._by

    def names(self) -> list[str]:
        return list(self._by)


def field_pairs(form: Form, spec: SheetField) -> list[tuple[str, str]]:
    """The pairs of one field in a form: its own name, and its rows' cells."""
    prefix = spec.key + "["
    return [(k, v) for k, v in form.pairs if k == spec.key or (spec.kind == "rows" and k.startswith(prefix))]


def digest(pairs: list[tuple[str, str]]) -> str:
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()[:16]


WAS = "_was."


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()  # a cell or field the sheet leaves out


# --- values shown as text ---------------------------------------------------------------------------------


def show(spec: SheetField, value: Any) -> Any:
    """What a field or cell of ``spec`` posts when shown with ``value``: a text, or for a yes/no a bool,
    or for ticks and numbers-in-a-row a tuple of texts."""
    if spec.kind == "bool":
        return bool(value) if value is not ABSENT else bool(spec.default)
    if value is ABSENT:
        if spec.kind in ("set", "ints", "flags"):
            return ()
        return ""
    if spec.kind == "set":
        if not isinstance(value, list):
            return ()
        wanted = {text_of(v) for v in value} | {text_of(v).strip().lower() for v in value}
        return tuple(t for t, _ in option_texts(spec) if t in wanted)
    if spec.kind == "flags":
        if isinstance(value, dict):
            return tuple(t for t, _ in option_texts(spec) if value.get(t))
        if isinstance(value, list):
            return tuple(t for t, _ in option_texts(spec) if t in {text_of(v) for v in value})
        return ()
    if spec.kind == "ints":
        if not isinstance(value, list):
            return (text_of(value),)
        texts = [text_of(v) for v in value]
        return tuple(texts + [""] * (len(spec.choices) - len(texts)))
    return text_of(value)


def text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)


def option_texts(spec: SheetField) -> list[tuple[str, str]]:
    return [(text_of(v), label) for v, label in spec.options()]


def is_select(spec: SheetField) -> bool:
    return bool(spec.choices) and spec.kind in ("int", "float", "die", "choice", "text")


# --- reading a text as the field's kind -------------------------------------------------------------------


class CellError(ValueError):
    """A cell's text the form cannot read as its kind; the message is the reason, in words (``msgid`` with its
    ``params``, to be said in the reader's language)."""

    def __init__(self, msgid: str, **params) -> None:
        self.msgid, self.params = msgid, params
        super().__init__(msgid % params if params else msgid)

    def said(self, words) -> str:
        return words.say(self.msgid, **self.params)


def parse(spec: SheetField, posted: Any) -> Any:
    """A posted text (bool, tuple) as the kind of ``spec``: ABSENT when empty and the field may be;
    CellError with the reason otherwise."""
    kind = spec.kind
    if kind == "bool":
        return bool(posted)
    if kind == "set":
        picked = set(posted)
        return [v for (t, _), (v, _) in zip(option_texts(spec), spec.options()) if t in picked] if picked else ABSENT
    if kind == "flags":
        return {v: True for (t, _), (v, _) in zip(option_texts(spec), spec.options()) if t in set(posted)}
    if kind == "ints":
        texts = [t.strip() for t in posted]
        while texts and not texts[-1]:
            texts.pop()
        if not texts:
            return ABSENT
        if any(not t for t in texts):
            raise CellError(N_("fill in the ones before the last"))
        out = []
        for t in texts:
            if not INT_TEXT.match(t):
                raise CellError(N_("whole numbers, not %(text)s"), text=repr(t[:20]))
            out.append(int(t))
        return out
    text = posted if isinstance(posted, str) else ""
    if kind in ("int", "float"):
        text = text.strip()
        if not text:
            if spec.may_be_empty:
                return ABSENT
            raise CellError(N_("a whole number is needed") if kind == "int" else N_("a number is needed"))
        if kind == "int" or INT_TEXT.match(text):
            if not INT_TEXT.match(text):
                raise CellError(N_("a whole number, not %(text)s"), text=repr(text[:20]))
            return int(text)
        try:
            number = float(text)
        except ValueError:
            raise CellError(N_("a number, not %(text)s"), text=repr(text[:20])) from None
        if not math.isfinite(number):
            raise CellError(N_("a number, not %(text)s"), text=repr(text[:20]))
        return number
    text = text.replace("\r\n", "\n")  # a text area posts its line breaks as CR LF
    if text == "" and spec.may_be_empty:
        return ABSENT
    return text


# --- the sheet's values, as the form sees them ------------------------------------------------------------


def lookup(sheet: Any, key: str) -> Any:
    """A field's stored value (a dotted key reaches into a table), ABSENT when the sheet has none."""
    at = sheet
    for part in key.split("."):
        if not isinstance(at, dict) or part not in at:
            return ABSENT
        at = at[part]
    return at


@dataclass
class Entry:
    """One stored entry of a field of rows: its cells (column key -> value, those it has) and itself."""

    cells: dict[str, Any]
    raw: Any
    key: Any = None  # its key in a table (or its index in a list)


def entries(spec: SheetField, value: Any) -> list[Entry]:
    cols = spec.columns
    first = cols[0].key
    out: list[Entry] = []
    if spec.shape == "record":
        if isinstance(value, dict):
            out.append(Entry({c.key: value[c.key] for c in cols if c.key in value}, value))
        return out
    if spec.shape in ("table", "map"):
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):  # a table the rules also take as a list of entries with a key or a name
            items = [(str(e.get(first) or e.get("name") or i) if isinstance(e, dict) else str(i), e)
                     for i, e in enumerate(value)]
        else:
            items = []
        for k, v in items:
            if spec.shape == "map":
                out.append(Entry({first: k, cols[1].key: v}, v, k))
            elif isinstance(v, dict):
                out.append(Entry({first: k, **{c.key: v[c.key] for c in cols[1:] if c.key in v}}, v, k))
            else:
                out.append(Entry({first: k}, v, k))
        return out
    for i, e in enumerate(value if isinstance(value, list) else []):
        if spec.shape == "values" or not isinstance(e, dict):
            out.append(Entry({first: e}, e, i))
        else:
            out.append(Entry({c.key: e[c.key] for c in cols if c.key in e}, e, i))
    return out


# --- the form a sheet shows -------------------------------------------------------------------------------


def posts_of(spec: SheetField, name: str, value: Any) -> list[tuple[str, str]]:
    """The pairs a browser posts for one field or cell shown with ``value``."""
    shown = show(spec, value)
    if spec.kind == "bool":
        return [(name, "true")] if shown else []
    if spec.kind in ("set", "flags", "ints"):
        return [(name, t) for t in shown]
    if is_select(spec):
        return [(name, shown)]  # a select posts its selected option: the shown value is always one
    return [(name, shown)]


def form_of(system, sheet: dict, locked: Iterable[str] = ()) -> Form:
    """The pairs the editor's form posts when it is sent as shown, in the page's order."""
    pairs: list[tuple[str, str]] = []
    locked = set(locked)
    for spec in system.sheet_fields():
        if spec.key.split(".")[0] in locked:
            continue
        value = lookup(sheet, spec.key)
        if spec.kind == "rows":
            pairs.append((spec.key, ""))
            rows = entries(spec, value)
            if spec.shape == "record" and not rows:
                rows = [Entry({}, ABSENT)]
                shown_from = False
            else:
                shown_from = True
            for i, entry in enumerate(rows):
                if shown_from:
                    pairs.append((f"{spec.key}[{i}][_from]", str(i)))
                for col in spec.columns:
                    pairs += posts_of(col, f"{spec.key}[{i}][{col.key}]", entry.cells.get(col.key, ABSENT))
            continue
        if value is ABSENT:
            value = copy.deepcopy(spec.default) if spec.default is not None else ABSENT
        if spec.kind == "bool":
            pairs.append((spec.key, "false"))
        elif spec.kind == "flags":
            pairs.append((spec.key, ""))
        pairs += posts_of(spec, spec.key, value)
    return Form(pairs)


def row_ids(form: Form, key: str) -> list[str]:
    """The rows a form posts for the field of rows ``key``, in their order (their numbers as posted)."""
    seen: dict[str, None] = {}
    for name in form.names():
        m = ROW_NAME.match(name)
        if m and m["key"] == key:
            seen.setdefault(m["row"], None)
    return list(seen)
