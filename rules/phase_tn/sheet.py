"""The character sheet of *Phase/TN Combat Sequence*: fields, the default sheet, derived values.

Attributes are rated 1-10 (5 is average, a reading: the document never
names its dice or its attribute range); skills add their rank to a roll.
"""

from __future__ import annotations

from ..system import SheetField
from .checks import attr
from .data import ATTRIBUTES, resolve_settings
from .health import wound_state

SAMPLE_SKILLS = {"handguns": 3, "fastdraw": 2, "rifles": 1, "brawling": 2}
SAMPLE_WEAPONS = [{"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}]


def sheet_fields() -> list[SheetField]:
    """The sheet form's fields."""
    attrs = [
        SheetField(f"attributes.{a}", a.capitalize(), "int", 5, group="Attributes", help="1-10, 5 is average")
        for a in ATTRIBUTES
    ]
    return attrs + [
        SheetField("skills", "Skills", "dict", dict(SAMPLE_SKILLS), group="Skills"),
        SheetField("initiative_bonus", "Initiative bonus", "int", 0, group="Combat"),
        SheetField(
            "weapons",
            "Weapons",
            "list",
            [dict(w) for w in SAMPLE_WEAPONS],
            group="Combat",
            help="mode: single, semi or auto",
        ),
        SheetField("flesh", "Flesh wounds", "int", 0, group="Wounds"),
        SheetField("trauma", "Traumatic wounds", "dict", {}, group="Wounds", help="location: count"),
    ]


def default_sheet() -> dict:
    """An average character with a sidearm."""
    return {
        "attributes": {a: 5 for a in ATTRIBUTES},
        "skills": dict(SAMPLE_SKILLS),
        "initiative_bonus": 0,
        "weapons": [dict(w) for w in SAMPLE_WEAPONS],
        "flesh": 0,
        "trauma": {},
    }


def derived(sheet: dict, settings: dict | None = None) -> dict:
    """Initiative base, the game's dice, and the wound state."""
    s = resolve_settings(settings)
    return {
        "initiative_base": sum(attr(sheet, a) for a in s["initiative_attributes"]) + sheet.get("initiative_bonus", 0),
        "roll_dice": s["roll_dice"],
        **wound_state(sheet, s),
    }
