"""A refused payload's validation errors (pydantic's) said in the reader's language (issue #37).

pydantic says what is wrong in English (``Input should be a valid integer``). A refusal keeps that English as its
``str()`` (the JSON API, the logs and the tests read it), and carries each error as a message id with its
parameters (``parts``), the field named by ``%(field)s``: ``webapp/live/screens/language.py``'s ``refusal_text`` says each in the
sender's language. The message ids are pydantic's own sentences with the field in front, so an English reader
reads what pydantic says. An error of a kind not listed here is said as ``%(field)s: %(problem)s`` with pydantic's
English (none of tacmap's models makes one).

A validator's own refusal (``ValueError``) says itself through :class:`Fault`: a message id with parameters, the
field among them.
"""

from __future__ import annotations

from typing import Callable

from pydantic import ValidationError

from .model import Rejected
from .text import N_, Fault

#: pydantic's error kinds as tacmap's models make them: pydantic's sentence, its context as parameters
MESSAGES: dict[str, str] = {
    "missing": N_("%(field)s: Field required"),
    "extra_forbidden": N_("%(field)s: Extra inputs are not permitted"),
    "int_type": N_("%(field)s: Input should be a valid integer"),
    "int_parsing": N_("%(field)s: Input should be a valid integer, unable to parse string as an integer"),
    "int_from_float": N_("%(field)s: Input should be a valid integer, got a number with a fractional part"),
    "float_type": N_("%(field)s: Input should be a valid number"),
    "float_parsing": N_("%(field)s: Input should be a valid number, unable to parse string as a number"),
    "finite_number": N_("%(field)s: Input should be a finite number"),
    "bool_type": N_("%(field)s: Input should be a valid boolean"),
    "bool_parsing": N_("%(field)s: Input should be a valid boolean, unable to interpret input"),
    "string_type": N_("%(field)s: Input should be a valid string"),
    "string_pattern_mismatch": N_("%(field)s: String should match pattern '%(pattern)s'"),
    "list_type": N_("%(field)s: Input should be a valid list"),
    "tuple_type": N_("%(field)s: Input should be a valid tuple"),
    "dict_type": N_("%(field)s: Input should be a valid dictionary"),
    "model_type": N_("%(field)s: Input should be a valid dictionary or instance of %(class_name)s"),
    "model_attributes_type": N_("%(field)s: Input should be a valid dictionary or object to extract fields from"),
    "none_required": N_("%(field)s: Input should be None"),
    "greater_than": N_("%(field)s: Input should be greater than %(gt)s"),
    "greater_than_equal": N_("%(field)s: Input should be greater than or equal to %(ge)s"),
    "less_than": N_("%(field)s: Input should be less than %(lt)s"),
    "less_than_equal": N_("%(field)s: Input should be less than or equal to %(le)s"),
    "multiple_of": N_("%(field)s: Input should be a multiple of %(multiple_of)s"),
    "literal_error": N_("%(field)s: Input should be %(expected)s"),
    "enum": N_("%(field)s: Input should be %(expected)s"),
    "union_tag_invalid": N_("%(field)s: Input tag '%(tag)s' found using %(discriminator)s does not match any of the "
                            "expected tags: %(expected_tags)s"),
    "union_tag_not_found": N_("%(field)s: Unable to extract tag using discriminator %(discriminator)s"),
}
#: the kinds whose sentence counts: (one, more), as two whole messages (pydantic says "1 item", "2 items")
COUNTED: dict[str, tuple[str, str, str]] = {
    "string_too_short": ("min_length", N_("%(field)s: String should have at least %(min_length)s character"),
                         N_("%(field)s: String should have at least %(min_length)s characters")),
    "string_too_long": ("max_length", N_("%(field)s: String should have at most %(max_length)s character"),
                        N_("%(field)s: String should have at most %(max_length)s characters")),
    "too_short": ("min_length",
                  N_("%(field)s: %(kind)s should have at least %(min_length)s item after validation, not %(actual_length)s"),
                  N_("%(field)s: %(kind)s should have at least %(min_length)s items after validation, not %(actual_length)s")),
    "too_long": ("max_length",
                 N_("%(field)s: %(kind)s should have at most %(max_length)s item after validation, not %(actual_length)s"),
                 N_("%(field)s: %(kind)s should have at most %(max_length)s items after validation, not %(actual_length)s")),
}
#: pydantic's names of a collection (too_short, too_long's ``field_type``), said in the reader's words
KINDS = {"List": N_("List"), "Dictionary": N_("Dictionary"), "Tuple": N_("Tuple")}
OTHER = N_("%(field)s: %(problem)s")


class Invalid(Rejected):
    """A payload pydantic refused: ``str()`` is pydantic's English (``at: Field required; on.0: ...``), ``parts``
    each error's message id and parameters for the reader's language."""

    def __init__(self, english: str, parts: list[tuple[str, dict]], code: str | None = None) -> None:
        super().__init__(english, code=code)
        self.parts = parts

    #: the parameters that are words themselves (said in the reader's language too)
    words = ("kind",)


def part(err: dict, field: str) -> tuple[str, dict]:
    """One pydantic error (an item of ``ValidationError.errors()``) as a message id and its parameters."""
    kind, ctx = err["type"], dict(err.get("ctx") or {})
    error = ctx.get("error")
    if kind == "value_error" and isinstance(error, Fault):
        return error.msgid, {**error.params, "field": field, "where": field}
    params = {k: v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v) for k, v in ctx.items()}
    params["field"] = field
    if kind in MESSAGES:
        return MESSAGES[kind], params
    if kind in COUNTED:
        count, one, more = COUNTED[kind]
        if "field_type" in params:
            params["kind"] = KINDS.get(params["field_type"], params["field_type"])
        return (one if ctx.get(count) == 1 else more), params
    return OTHER, {"field": field, "problem": err["msg"]}


def refused(exc: ValidationError, where: Callable[[tuple], str], most: int = 1, code: str | None = None) -> Invalid:
    """The refusal of a payload pydantic refused: its first ``most`` errors, each naming its field as
    ``where(loc)`` names it (``map.walls.3.a``)."""
    errors = exc.errors()[:most]
    english = "; ".join(f"{where(err['loc'])}: {err['msg']}" if where(err["loc"]) else err["msg"] for err in errors)
    return Invalid(english, [part(err, where(err["loc"]) or "payload") for err in errors], code=code)
