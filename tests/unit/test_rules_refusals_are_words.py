"""Every refusal the rules raise is words (``rules.text.say``), never an English string (#37: "Every string a
person reads goes through gettext ... refusals"): a ``RuleError`` / ``RuleNotImplemented`` made from a string
literal or an f-string would reach a German phone in English. Read from the sources (the AST), so a refusal
no test happens to raise is checked too."""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "rules"
REFUSALS = {"RuleError", "RuleNotImplemented"}


def english_refusals(source: str) -> list[int]:
    """The lines where a refusal is made of a string literal or an f-string."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        first = node.args[0]
        if name in REFUSALS and (isinstance(first, ast.JoinedStr)
                                 or (isinstance(first, ast.Constant) and isinstance(first.value, str))):
            lines.append(node.lineno)
    return lines


def test_no_refusal_in_the_rules_is_an_english_string():
    english = [f"{path.relative_to(RULES.parent)}:{line}" for path in sorted(RULES.rglob("*.py"))
               for line in english_refusals(path.read_text(encoding="utf-8"))]
    assert english == [], "refusals made of English strings (write say(...)):\n" + "\n".join(english)


def test_the_check_finds_an_english_refusal():
    sample = ('def f(x):\n    raise RuleError(f"no {x}")\n\n'
              'def g():\n    raise system.RuleNotImplemented("not yet")\n\n'
              'def h():\n    raise RuleError(say("words"))\n')
    assert english_refusals(sample) == [2, 5]
