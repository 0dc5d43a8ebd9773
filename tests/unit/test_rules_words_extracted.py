"""Every say()/say_n() the rules and the game write is in the rules catalog's template (issue #37): Babel's
Python extractor misses a say() written inside another one's list argument, and such words would stay English
in every language without any catalog check noticing (the .po files agree with the .pot that lacks them)."""

from __future__ import annotations

import ast
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]


def said_in_sources() -> set[tuple[str, str]]:
    """(file, message id) of every say("...") and say_n("...", "...") call with literal words."""
    found = set()
    for folder in ("rules", "webapp/game"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("say", "say_n")
                        and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    found.add((str(path.relative_to(ROOT)), node.args[0].value))
    return found


def test_every_word_the_rules_say_is_in_the_catalog_template():
    with open(ROOT / "translations" / "rules.pot", "rb") as f:
        template = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    said = said_in_sources()
    assert len(said) > 500, "the rules' words are found in the sources"
    missing = sorted(f"{where}: {msg!r}" for where, msg in said if msg not in template)
    assert not missing, "not extracted (make the inner words first, then the line):\n" + "\n".join(missing)
