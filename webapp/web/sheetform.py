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

Words: the fields' labels, hints and choices are the rules' own text, and a refusal is this module's; both are
shown through ``words`` (an object with ``translate(text)`` for a rules text and ``say(msgid, **params)`` for
a message of this module, marked ``N_``): the page hands in webapp.web.helptext, whose catalog is the "help"
domain; the default is English as written.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from rules.system import SheetField

ROW_NAME = re.compile(r"^(?P<key>[^\[\]]+)\[(?P<row>\d+)\]\[(?P<col>\w+)\]$")
INT_TEXT = re.compile(r"^[+-]?\d{1,15}$")  # a whole number a sheet can hold (not a 5,000-digit one)
#: the HTML number input's grammar (a "valid floating-point number"): other text is shown in a text box
NUMBER_TEXT = re.compile(r"^-?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$")
MAX_ROWS = 200


def N_(msgid: str) -> str:
    """A message of this module, marked for the "help" catalog (translations/help.cfg); said through ``words``."""
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
        wanted = {_text(v) for v in value} | {_text(v).strip().lower() for v in value}
        return tuple(t for t, _ in _option_texts(spec) if t in wanted)
    if spec.kind == "flags":
        if isinstance(value, dict):
            return tuple(t for t, _ in _option_texts(spec) if value.get(t))
        if isinstance(value, list):
            return tuple(t for t, _ in _option_texts(spec) if t in {_text(v) for v in value})
        return ()
    if spec.kind == "ints":
        if not isinstance(value, list):
            return (_text(value),)
        texts = [_text(v) for v in value]
        return tuple(texts + [""] * (len(spec.choices) - len(texts)))
    return _text(value)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)


def _option_texts(spec: SheetField) -> list[tuple[str, str]]:
    return [(_text(v), label) for v, label in spec.options()]


def _is_select(spec: SheetField) -> bool:
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
        return [v for (t, _), (v, _) in zip(_option_texts(spec), spec.options()) if t in picked] if picked else ABSENT
    if kind == "flags":
        return {v: True for (t, _), (v, _) in zip(_option_texts(spec), spec.options()) if t in set(posted)}
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


def _posts(spec: SheetField, name: str, value: Any) -> list[tuple[str, str]]:
    """The pairs a browser posts for one field or cell shown with ``value``."""
    shown = show(spec, value)
    if spec.kind == "bool":
        return [(name, "true")] if shown else []
    if spec.kind in ("set", "flags", "ints"):
        return [(name, t) for t in shown]
    if _is_select(spec):
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
                    pairs += _posts(col, f"{spec.key}[{i}][{col.key}]", entry.cells.get(col.key, ABSENT))
            continue
        if value is ABSENT:
            value = copy.deepcopy(spec.default) if spec.default is not None else ABSENT
        if spec.kind == "bool":
            pairs.append((spec.key, "false"))
        elif spec.kind == "flags":
            pairs.append((spec.key, ""))
        pairs += _posts(spec, spec.key, value)
    return Form(pairs)


# --- the views the template renders -----------------------------------------------------------------------


@dataclass
class Cell:
    name: str
    spec: SheetField
    text: str = ""
    checked: bool = False
    picked: tuple[str, ...] = ()
    options: list[tuple[str, str]] = field(default_factory=list)
    error: str = ""

    @property
    def input_type(self) -> str:
        """``number`` for a number the browser can hold as one; ``text`` for anything else the sheet holds."""
        if self.spec.kind in ("int", "float") and (self.text == "" or NUMBER_TEXT.match(self.text)):
            return "number"
        return "text"

    @property
    def widget(self) -> str:
        if self.spec.kind in ("bool", "set", "flags", "ints"):
            return self.spec.kind
        if _is_select(self.spec):
            return "select"
        if self.spec.lines > 1:
            return "textarea"
        return "input"

    @property
    def slots(self) -> list[tuple[str, str, str]]:
        """A list of numbers' boxes (``ints``): label, text, input type."""
        labels = [label for _value, label in self.spec.options()]
        texts = list(self.picked) + [""] * (len(labels) - len(self.picked))
        labels += [""] * (len(texts) - len(labels))
        return [(label, t, "number" if t == "" or INT_TEXT.match(t) and not t.startswith("+") else "text")
                for label, t in zip(labels, texts)]

    @property
    def suggest_id(self) -> str:
        return f"known-{self.name.split('[')[0]}-{self.spec.key}" if self.spec.suggestions else ""

    @property
    def placeholder(self) -> str:
        spec = self.spec
        if spec.default in (None, "") or spec.kind == "bool":
            return ""
        return _text(spec.default)


@dataclass
class Row:
    rid: str
    origin: str | None
    cells: list[Cell]
    error: str = ""

    @property
    def main(self) -> list[Cell]:
        return [c for c in self.cells if not c.spec.more]

    @property
    def more(self) -> list[Cell]:
        return [c for c in self.cells if c.spec.more]

    @property
    def more_open(self) -> bool:
        return any(c.error for c in self.more)


@dataclass
class FieldView:
    spec: SheetField
    locked: bool = False
    cell: Cell | None = None
    rows: list[Row] = field(default_factory=list)
    blank: Row | None = None
    next_row: int = 0
    error: str = ""
    was: str = ""  # the digest of what the field showed when the page was made

    @property
    def has_error(self) -> bool:
        return bool(self.error or (self.cell and self.cell.error)
                    or any(r.error or any(c.error for c in r.cells) for r in self.rows))


def _cell(spec: SheetField, name: str, form: Form, errors: dict[str, str]) -> Cell:
    values = form.getlist(name)
    cell = Cell(name, spec, error=errors.get(name, ""))
    if spec.kind == "bool":
        cell.checked = "true" in values or "on" in values
    elif spec.kind in ("set", "flags"):
        cell.picked = tuple(v for v in values if v)
        cell.options = _option_texts(spec)
    elif spec.kind == "ints":
        cell.picked = tuple(values) + ("",) * (len(spec.choices) - len(values))
    else:
        cell.text = values[0] if values else ""
    if _is_select(spec):
        options = _option_texts(spec)
        if spec.may_be_empty:
            default = _text(spec.default)  # what an empty cell means, named as its choice is (its words, not its key)
            options = [("", f"({dict(options).get(default, default)})" if spec.default not in (None, "") else "—")] + options
        if cell.text not in {t for t, _ in options}:
            options.append((cell.text, cell.text or "—"))  # what the sheet holds, or what was sent, stays
        cell.options = options
    return cell


def shown_as(spec: SheetField, words=AS_WRITTEN) -> SheetField:
    """``spec`` as the page shows it: its label, hint, group and choice labels in ``words`` (its keys, kinds and
    values as they are, so what the form posts reads back the same)."""
    return replace(spec, label=words.translate(spec.label), help=words.translate(spec.help),
                   group=words.translate(spec.group),
                   choices=tuple((c[0], words.translate(c[1])) if isinstance(c, tuple) else c for c in spec.choices),
                   columns=tuple(shown_as(c, words) for c in spec.columns))


def views(system, form: Form, locked: Iterable[str] = (), errors: dict[str, str] | None = None,
          shown: Form | None = None, words=AS_WRITTEN) -> list[FieldView]:
    """The fields as the template renders them, with the values of ``form``: the sheet's own
    (``form_of``), or a posted form sent back with its refusals (``errors``: form name -> reason;
    a field's own name for the field, ``key[row]`` for a row). ``shown`` fills a locked field (not
    posted by the page) from the sheet; ``words`` says the fields' labels (see the module's text)."""
    errors = errors or {}
    locked = set(locked)
    out = []
    for spec in (shown_as(s, words) for s in system.sheet_fields()):
        is_locked = spec.key.split(".")[0] in locked
        src = shown if (is_locked and shown is not None) else form
        view = FieldView(spec, locked=is_locked, error=errors.get(spec.key, ""))
        view.was = form.get(WAS + spec.key) or digest(field_pairs(src, spec))
        if spec.kind != "rows":
            view.cell = _cell(spec, spec.key, src, errors)
            out.append(view)
            continue
        for rid in _row_ids(src, spec.key):
            prefix = f"{spec.key}[{rid}]"
            view.rows.append(Row(rid, src.get(f"{prefix}[_from]"),
                                 [_cell(c, f"{prefix}[{c.key}]", src, errors) for c in spec.columns],
                                 errors.get(prefix, "")))
        view.next_row = max([int(r.rid) + 1 for r in view.rows] or [0])
        view.blank = Row("__ROW__", None, [_cell(c, f"{spec.key}[__ROW__][{c.key}]", Form(_posts(c, f"{spec.key}[__ROW__][{c.key}]", ABSENT)), {})
                                           for c in spec.columns])
        out.append(view)
    return out


def groups(fields: list[FieldView]) -> list[tuple[str, list[FieldView]]]:
    """The fields by their group, in the order the system lists them."""
    out: dict[str, list[FieldView]] = {}
    for view in fields:
        out.setdefault(view.spec.group, []).append(view)
    return list(out.items())


def _row_ids(form: Form, key: str) -> list[str]:
    seen: dict[str, None] = {}
    for name in form.names():
        m = ROW_NAME.match(name)
        if m and m["key"] == key:
            seen.setdefault(m["row"], None)
    return list(seen)


# --- reading a posted form back -----------------------------------------------------------------------------


class FormError(ValueError):
    """Cells the form cannot read: ``errors`` form name -> reason; ``labels`` form name -> where, in words."""

    def __init__(self, errors: dict[str, str], labels: dict[str, str]) -> None:
        self.errors = errors
        self.labels = labels
        first = next(iter(errors))
        super().__init__(f"{labels.get(first, first)}: {errors[first]}")


@dataclass
class Reading:
    """A posted form read: ``changes`` (field key -> new value), ``places`` (a path into the sheet ->
    the form name that shows it, to put the rules' refusals beside their field) and ``labels``."""

    changes: dict[str, Any]
    places: dict[tuple, str]
    labels: dict[str, str]

    def place(self, path: tuple) -> str | None:
        """The form name nearest to ``path`` (a field, a row, a cell), None when the form shows none."""
        for n in range(len(path), 0, -1):
            name = self.places.get(tuple(path[:n]))
            if name is not None:
                return name
        return None


def _posted(spec: SheetField, form: Form, name: str) -> Any:
    values = form.getlist(name)
    if spec.kind == "bool":
        return "true" in values or "on" in values
    if spec.kind in ("set", "flags"):
        return tuple(v for v in values if v)
    if spec.kind == "ints":
        return tuple(values)
    return values[0] if values else None


def _same(spec: SheetField, posted: Any, shown: Any) -> bool:
    if spec.kind in ("set", "flags"):
        return set(posted) == set(shown)
    if spec.kind == "ints":
        return _trimmed(posted) == _trimmed(shown)
    if isinstance(posted, str) and isinstance(shown, str):
        return posted.replace("\r\n", "\n") == shown
    return posted == shown


def _trimmed(texts: Iterable[str]) -> list[str]:
    out = [t.strip() for t in texts]
    while out and not out[-1]:
        out.pop()
    return out


def _blank(spec: SheetField, posted: Any) -> bool:
    if spec.kind == "bool":
        return posted == bool(spec.default)
    if spec.kind in ("set", "flags", "ints"):
        return not any(t.strip() for t in posted)
    return not (posted or "").strip()


def read(system, form: Form, sheet: dict, locked: Iterable[str] = (), *, changes_only: bool = True,
         words=AS_WRITTEN) -> Reading:
    """The changes a posted form makes to ``sheet``; with ``changes_only=False``, every posted field's
    value read from its text alone (no stored value kept, no entry carried over: for the tests of the
    parsing itself). FormError with every cell it cannot read. A field the form leaves out is not changed.
    ``words`` says the refusals and the fields' names in them (see the module's text)."""
    locked = set(locked)
    errors: dict[str, str] = {}
    labels: dict[str, str] = {}
    places: dict[tuple, str] = {}
    changes: dict[str, Any] = {}
    if not changes_only:
        sheet = {}
    for spec in system.sheet_fields():
        if spec.key.split(".")[0] in locked or (spec.key not in form and not _row_ids(form, spec.key)):
            continue
        if changes_only and form.get(WAS + spec.key) == digest(field_pairs(form, spec)):
            continue  # sent back as it was shown: left as the sheet has it now
        stored = lookup(sheet, spec.key)
        places[tuple(spec.key.split("."))] = spec.key
        labels[spec.key] = words.translate(spec.label)
        if spec.kind == "rows":
            try:
                value = _read_rows(spec, form, stored, errors, labels, places, words)
            except CellError as exc:
                errors[spec.key] = exc.said(words)
                continue
            if value is ABSENT or (changes_only and value == stored):
                continue
            changes[spec.key] = value
            continue
        effective = stored if stored is not ABSENT else copy.deepcopy(spec.default)
        posted = _posted(spec, form, spec.key)
        if posted is None:
            continue
        if changes_only and _same(spec, posted, show(spec, ABSENT if effective is None else effective)):
            continue
        try:
            value = parse(spec, posted)
        except CellError as exc:
            errors[spec.key] = exc.said(words)
            continue
        if spec.kind == "flags":
            value = _flags(spec, value, effective if changes_only else ABSENT)
        if value is ABSENT:
            value = copy.deepcopy(spec.default)
        if changes_only and value == effective:
            continue
        changes[spec.key] = value
    if errors:
        raise FormError(errors, labels)
    return Reading(changes, places, labels)


def _flags(spec: SheetField, picked: dict, stored: Any) -> Any:
    """Ticks read back over the stored table: a tick kept keeps its stored value, an untick of a stored
    entry stores no, keys the form does not show stay; a list of names stays a list."""
    if isinstance(stored, list):
        known = {_text(v) for v, _ in spec.options()}
        kept = [v for v in stored if _text(v) in picked or _text(v) not in known]
        return kept + [v for v in picked if v not in kept]
    out = dict(stored) if isinstance(stored, dict) else {}
    for value, _ in spec.options():
        if value in picked:
            out[value] = stored[value] if isinstance(stored, dict) and stored.get(value) else True
        elif value in out:
            out[value] = out[value] if not out[value] else False
    return out


def _read_rows(spec: SheetField, form: Form, stored: Any, errors: dict, labels: dict, places: dict,
               words=AS_WRITTEN) -> Any:
    olds = entries(spec, stored)
    field_label, label = words.translate(spec.label), {c.key: words.translate(c.label) for c in spec.columns}
    rids = _row_ids(form, spec.key)
    if len(rids) > MAX_ROWS:
        raise CellError(N_("%(count)s rows at most"), count=MAX_ROWS)
    cols = spec.columns
    first = cols[0]
    rows: list[tuple[str, Entry | None, dict[str, Any], bool]] = []  # rid, the entry it was shown from, cells, unchanged
    used: set[int] = set()
    for rid in rids:
        prefix = f"{spec.key}[{rid}]"
        origin = form.get(f"{prefix}[_from]")
        old = None
        if origin is not None and origin.isdigit() and int(origin) < len(olds) and int(origin) not in used:
            used.add(int(origin))
            old = olds[int(origin)]
        cells: dict[str, Any] = {}
        unchanged = old is not None
        blank = True
        for col in cols:
            name = f"{prefix}[{col.key}]"
            labels[name] = f"{field_label}, {label[col.key]}"
            posted = _posted(col, form, name)
            if posted is None:
                posted = ""
            before = old.cells.get(col.key, ABSENT) if old is not None else ABSENT
            blank = blank and _blank(col, posted)
            if old is not None and _same(col, posted, show(col, before)):
                cells[col.key] = before
                continue
            unchanged = False
            try:
                value = parse(col, posted)
            except CellError as exc:
                errors[name] = exc.said(words)
                continue
            if col.kind == "bool" and before is ABSENT and value == bool(col.default):
                value = ABSENT  # the rules' default, and the entry said nothing: it still says nothing
            cells[col.key] = value
        if blank and not unchanged:
            continue  # a row added and left empty, or emptied: no entry
        for col in cols:
            name = f"{prefix}[{col.key}]"
            if not col.optional and cells.get(col.key, ABSENT) in (ABSENT, "") and name not in errors:
                errors[name] = words.say(N_("needed"))
        rows.append((rid, old, cells, unchanged))
    if len(rows) == len(olds) and all(r[3] and r[1] is o for r, o in zip(rows, olds)):
        value = stored  # shown and sent back as it was
    else:
        value = _assemble(spec, rows, stored, errors, words)
    for position, (rid, _, cells, _) in enumerate(rows):  # where each entry is shown, for the rules' refusals
        prefix = f"{spec.key}[{rid}]"
        name = {c.key: f"{prefix}[{c.key}]" for c in cols}
        if spec.shape == "record":
            base: tuple = (spec.key,)
        elif spec.shape in ("table", "map"):
            base = (spec.key, _key_of(spec, cells))
        else:
            base = (spec.key, position)
        if spec.shape == "map":
            places[base] = name[cols[1].key]
        elif spec.shape == "values":
            places[base] = name[first.key]
        elif spec.shape != "record":
            places[base] = prefix
        for col in cols:
            places[(*base, col.key)] = name[col.key]
        head = _key_of(spec, cells) if spec.shape in ("table", "map") else cells.get(first.key, ABSENT)
        labels[prefix] = f"{field_label}, {_text(head) if head not in (ABSENT, '') else position + 1}"
        for col in cols:
            labels[name[col.key]] = f"{labels[prefix]}, {label[col.key]}"
    return value


def _key_of(spec: SheetField, cells: dict[str, Any]) -> Any:
    """A table entry's key: its first column, else (a table of entries with a name) its name."""
    key = cells.get(spec.columns[0].key, ABSENT)
    if key in (ABSENT, "") and spec.shape == "table" and cells.get("name", ABSENT) not in (ABSENT, ""):
        key = cells["name"]
    return key


def _entry(spec: SheetField, old: Entry | None, cells: dict[str, Any], skip: str | None = None) -> Any:
    """An entry from its cells over the entry it was shown from: the keys no column shows stay."""
    cols = [c for c in spec.columns if c.key != skip]
    keys = {c.key for c in cols}
    if old is not None and not isinstance(old.raw, dict):
        only = [k for k, v in cells.items() if v is not ABSENT and k != skip]
        if only == [spec.columns[0].key] and spec.shape == "list":
            return cells[only[0]]  # a plain name where the rules take one ("Stunned" for {"name": "Stunned"})
    out: dict[str, Any] = {}
    if old is not None and isinstance(old.raw, dict):
        for k, v in old.raw.items():
            if k in keys:
                if cells.get(k, ABSENT) is not ABSENT:
                    out[k] = cells[k]
            elif k != skip:
                out[k] = v
    for c in cols:
        if c.key not in out and cells.get(c.key, ABSENT) is not ABSENT:
            out[c.key] = cells[c.key]
    return out


def _assemble(spec: SheetField, rows: list, stored: Any, errors: dict, words=AS_WRITTEN) -> Any:
    first = spec.columns[0].key
    if spec.shape == "record":
        if not rows:
            return {} if isinstance(stored, dict) else stored
        _, old, cells, _ = rows[0]
        return _entry(spec, old, cells)
    if spec.shape == "values":
        return [cells[first] for _, _, cells, _ in rows if cells.get(first, ABSENT) is not ABSENT]
    if spec.shape == "list":
        return [_entry(spec, old, cells) for _, old, cells, _ in rows]
    out: dict[Any, Any] = {}
    for rid, old, cells, _ in rows:
        key = _key_of(spec, cells)
        if key in (ABSENT, ""):
            continue  # "needed" is said beside it
        if key in out:
            errors[f"{spec.key}[{rid}][{first}]"] = words.say(N_("%(name)s is listed twice"), name=repr(_text(key)))
            continue
        if spec.shape == "map":
            value = cells.get(spec.columns[1].key, ABSENT)
            if value is not ABSENT:
                out[key] = value
        elif old is not None and not isinstance(old.raw, dict) and all(
                v is ABSENT for k, v in cells.items() if k != first):
            out[key] = old.raw
        else:
            out[key] = _entry(spec, old, cells, skip=first)
    return out
