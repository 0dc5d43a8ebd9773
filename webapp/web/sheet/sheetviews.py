"""The sheet editor's fields as the page renders them (webapp/web/sheet/sheetform.py has the form itself): each
field a ``FieldView`` with its cell or its rows of cells, the values a form holds, its refusal beside it, and the
labels, hints and choices in the reader's words."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from rules.system import SheetField

from .sheetform import (ABSENT, AS_WRITTEN, INT_TEXT, NUMBER_TEXT, WAS, Form, digest, field_pairs, is_select,
                        option_texts, posts_of, row_ids, text_of)


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
        if is_select(self.spec):
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
        return text_of(spec.default)


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
        cell.options = option_texts(spec)
    elif spec.kind == "ints":
        cell.picked = tuple(values) + ("",) * (len(spec.choices) - len(values))
    else:
        cell.text = values[0] if values else ""
    if is_select(spec):
        options = option_texts(spec)
        if spec.may_be_empty:
            default = text_of(spec.default)  # what an empty cell means, named as its choice is (its words, not its key)
            empty = f"({dict(options).get(default, default)})" if spec.default not in (None, "") else "—"
            options = [("", empty)] + options
        if cell.text not in {t for t, _ in options}:
            options.append((cell.text, cell.text or "—"))  # what the sheet holds, or what was sent, stays
        cell.options = options
    return cell


def _blank_cell(spec: SheetField, name: str) -> Cell:
    """A cell of the row the page's script copies when a row is added: as an empty entry shows it."""
    return _cell(spec, name, Form(posts_of(spec, name, ABSENT)), {})


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
        for rid in row_ids(src, spec.key):
            prefix = f"{spec.key}[{rid}]"
            view.rows.append(Row(rid, src.get(f"{prefix}[_from]"),
                                 [_cell(c, f"{prefix}[{c.key}]", src, errors) for c in spec.columns],
                                 errors.get(prefix, "")))
        view.next_row = max([int(r.rid) + 1 for r in view.rows] or [0])
        view.blank = Row("__ROW__", None, [_blank_cell(c, f"{spec.key}[__ROW__][{c.key}]") for c in spec.columns])
        out.append(view)
    return out


def groups(fields: list[FieldView]) -> list[tuple[str, list[FieldView]]]:
    """The fields by their group, in the order the system lists them."""
    out: dict[str, list[FieldView]] = {}
    for view in fields:
        out.setdefault(view.spec.group, []).append(view)
    return list(out.items())
