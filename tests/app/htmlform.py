"""What a browser posts for a form of a page, read from the page's HTML as a browser reads it: the form's
controls in order, disabled ones and those inside <template> left out, a checkbox only when ticked, a
select's selected option (else its first), a text area without the newline right after its tag and
with its line breaks sent as CR LF, a text box without line breaks, and a number box emptied when its
value is not a number the browser takes (the HTML "valid floating-point number")."""

from __future__ import annotations

import re
from html.parser import HTMLParser

NUMBER = re.compile(r"^-?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$")


class _FormReader(HTMLParser):
    def __init__(self, selector_class: str) -> None:
        super().__init__(convert_charrefs=True)
        self.want = selector_class
        self.depth = 0  # inside the wanted form
        self.template = 0
        self.pairs: list[tuple[str, str]] = []
        self.select: dict | None = None
        self.option: dict | None = None
        self.textarea: dict | None = None
        self.found = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.want in (a.get("class") or "").split():
            self.depth, self.found = 1, True
            return
        if not self.depth:
            return
        if tag == "template":
            self.template += 1
        if self.template:
            return
        disabled = "disabled" in a
        if tag == "input" and a.get("name") and not disabled:
            kind = (a.get("type") or "text").lower()
            value = a.get("value") or ""
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.pairs.append((a["name"], a.get("value", "on")))
            elif kind in ("submit", "button", "reset", "image", "file"):
                pass
            elif kind == "number":
                self.pairs.append((a["name"], value if NUMBER.match(value) else ""))
            elif kind == "hidden":
                self.pairs.append((a["name"], value))
            else:
                self.pairs.append((a["name"], value.replace("\r", "").replace("\n", "")))
        elif tag == "select" and a.get("name"):
            self.select = {"name": a["name"], "disabled": disabled, "first": None, "chosen": None}
        elif tag == "option" and self.select is not None:
            self.option = {"value": a.get("value"), "text": "", "selected": "selected" in a}
        elif tag == "textarea" and a.get("name"):
            self.textarea = {"name": a["name"], "disabled": disabled, "text": ""}

    def handle_data(self, data):
        if self.option is not None:
            self.option["text"] += data
        elif self.textarea is not None:
            self.textarea["text"] += data

    def _end_option(self):
        if self.option is None or self.select is None:
            return
        o = self.option
        value = o["value"] if o["value"] is not None else " ".join(o["text"].split())
        if self.select["first"] is None:
            self.select["first"] = value
        if o["selected"] and self.select["chosen"] is None:
            self.select["chosen"] = value
        self.option = None

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "template":
            self.template -= 1
            return
        if self.template:
            return
        if tag in ("option", "select"):
            self._end_option()
        if tag == "select" and self.select is not None:
            s = self.select
            value = s["chosen"] if s["chosen"] is not None else s["first"]
            if not s["disabled"] and value is not None:
                self.pairs.append((s["name"], value))
            self.select = None
        elif tag == "textarea" and self.textarea is not None:
            t = self.textarea
            text = t["text"][1:] if t["text"].startswith("\n") else t["text"]
            text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")
            if not t["disabled"]:
                self.pairs.append((t["name"], text))
            self.textarea = None
        elif tag == "form":
            self.depth = 0


def form_pairs(html: str, form_class: str = "sheet-form") -> list[tuple[str, str]]:
    """The (name, value) pairs the form with that class posts when sent as the page shows it."""
    reader = _FormReader(form_class)
    reader.feed(html)
    reader.close()
    assert reader.found, f"no form.{form_class} in the page"
    return reader.pairs


def new_row(html: str, field: str, row: int, **values: str) -> list[tuple[str, str]]:
    """The pairs a row added with the field's Add button posts (the page's script numbers it ``row``),
    with ``values`` typed into its cells (by column)."""
    start = html.index(f'data-rows="{field}"')
    start = html.index("<template>", start)
    inner = html[start + len("<template>"):html.index("</template>", start)]
    pairs = form_pairs(f'<form class="row">{inner}</form>', "row")
    out = [(k.replace("[__ROW__]", f"[{row}]"), v) for k, v in pairs]
    for col, text in values.items():
        name = f"{field}[{row}][{col}]"
        assert name in dict(out), f"no cell {col} in a new {field} row"
        out = [(k, text if k == name else v) for k, v in out]
    return out
