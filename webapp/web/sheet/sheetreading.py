"""A posted sheet editor's form read back into the sheet's changes (webapp/web/sheet/sheetform.py has the form and the
rules of its round trip): each field compared with what it showed, its text read as its kind, a field of rows
put back together over the entries it was shown from, and every cell it cannot read said in ``words``."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.system import SheetField

from .sheetform import (ABSENT, AS_WRITTEN, MAX_ROWS, WAS, CellError, Entry, Form, N_, digest, entries, field_pairs,
                        lookup, parse, row_ids, show, text_of)


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
        if spec.key.split(".")[0] in locked or (spec.key not in form and not row_ids(form, spec.key)):
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
        known = {text_of(v) for v, _ in spec.options()}
        kept = [v for v in stored if text_of(v) in picked or text_of(v) not in known]
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
    rids = row_ids(form, spec.key)
    if len(rids) > MAX_ROWS:
        raise CellError(N_("%(count)s rows at most"), count=MAX_ROWS)
    cols = spec.columns
    first = cols[0]
    # rid, the entry it was shown from, cells, unchanged
    rows: list[tuple[str, Entry | None, dict[str, Any], bool]] = []
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
        labels[prefix] = f"{field_label}, {text_of(head) if head not in (ABSENT, '') else position + 1}"
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
            errors[f"{spec.key}[{rid}][{first}]"] = words.say(N_("%(name)s is listed twice"), name=repr(text_of(key)))
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
