"""Every say()/say_n() the rules and the game write is in the rules catalog's template (issue #37): Babel's
Python extractor misses a say() written inside another one's list argument, and such words would stay English
in every language without any catalog check noticing (the .po files agree with the .pot that lacks them)."""

from __future__ import annotations

import ast
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]


def said_in_sources() -> set[tuple[str, str | None, str]]:
    """(file, context, message id) of every say("..."), say_n("...", "...") and say_p("context", "...") call with
    literal words (the context None but for say_p)."""
    found = set()
    for folder in ("rules", "webapp/game"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in ("say", "say_n", "say_p")):
                    continue
                literal = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                           for a in node.args]
                if node.func.id == "say_p" and len(literal) >= 2 and None not in literal[:2]:
                    found.add((str(path.relative_to(ROOT)), literal[0], literal[1]))
                elif node.func.id != "say_p" and literal and literal[0] is not None:
                    found.add((str(path.relative_to(ROOT)), None, literal[0]))
    return found


def test_every_word_the_rules_say_is_in_the_catalog_template():
    with open(ROOT / "translations" / "rules.pot", "rb") as f:
        template = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id}
    said = said_in_sources()
    assert len(said) > 500, "the rules' words are found in the sources"
    assert any(ctx == "range band" for _, ctx, _ in said), "say_p's words are found too"
    missing = sorted(f"{where}: {msg!r}" + (f" (context {ctx!r})" if ctx else "")
                     for where, ctx, msg in said if (ctx, msg) not in template)
    assert not missing, "not extracted (make the inner words first, then the line):\n" + "\n".join(missing)
