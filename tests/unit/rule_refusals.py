"""What the unit tests of the rules' words share: the words a rule call is refused with."""

from __future__ import annotations

import pytest

from rules.system import RuleError, RuleNotImplemented
from rules.text import Say


def refusal(call, *args, **kwargs) -> Say:
    """What ``call(*args, **kwargs)`` refuses with (a rule's refusal, a sheet check, or a step the rules leave to
    the GM): its words, which must be a ``Say`` (English alone fails)."""
    with pytest.raises((RuleError, RuleNotImplemented)) as caught:
        call(*args, **kwargs)
    said = caught.value.args[0]
    assert isinstance(said, Say), f"English only: {said!r}"
    return said
