"""How an amount in a system's unit is written (webapp.game.core.text.measure, used by the turn panel and
the attack preview; static/js/reach.js writes the ruler the same way)."""

from __future__ import annotations

import pytest

from webapp.game.core.text import measure


@pytest.mark.parametrize("amount, unit, shown", [
    (5, '"', '5"'), (6.0, '"', '6"'), (1, '"', '1"'), (2.5, '"', '2.5"'),  # Savage Worlds' inches: a sign
    (1, "yard", "1 yard"), (5, "yard", "5 yards"), (1.5, "yard", "1.5 yards"),
    (1, "square", "1 square"), (10.04, "square", "10 squares"), (3, "zone", "3 zones"),
    (5, "m", "5 m"),  # a short unit of letters: spaced, not plural
    (1, "zone step", "1 zone step"), (2, "zone step", "2 zone steps"),  # #33: it read "1zone step"
])
def test_an_amount_is_written_as_people_write_it(amount, unit, shown):
    assert measure(amount, unit) == shown
