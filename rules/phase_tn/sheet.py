"""The character sheet of *Phase/TN Combat Sequence*: fields, the default sheet, derived values.

Attributes are rated 1-10 (5 is average, a reading: the document never
names its dice or its attribute range); skills add their rank to a roll.
"""

from __future__ import annotations

from ..dice import DiceError, parse
from ..system import SheetError, SheetField, column
from .checks import attr
from .data import MODE_WORDS
from .data import ATTRIBUTE_WORDS, ATTRIBUTES, LOCATION_WORDS, LOCATIONS, resolve_settings
from .health import wound_state

SAMPLE_SKILLS = {"handguns": 3, "fastdraw": 2, "rifles": 1, "brawling": 2}
WEAPON_MODES = ("single", "semi", "auto")
SAMPLE_WEAPONS = [{"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}]


def sheet_fields() -> list[SheetField]:
    """The sheet form's fields."""
    attrs = [
        SheetField(f"attributes.{a}", a.capitalize(), "int", 5, group="Attributes", help="1-10, 5 is average")
        for a in ATTRIBUTES
    ]
    return attrs + [
        SheetField("skills", "Skills", "rows", dict(SAMPLE_SKILLS), shape="map", group="Skills",
                   help="a skill's rank is added to its rolls",
                   columns=(column("name", "Skill", required=True, suggestions=tuple(SAMPLE_SKILLS)),
                            column("rank", "Rank", "int", required=True))),
        SheetField("initiative_bonus", "Initiative bonus", "int", 0, group="Combat"),
        SheetField("weapons", "Weapons", "rows", [dict(w) for w in SAMPLE_WEAPONS], group="Combat",
                   columns=weapon_columns()),
        SheetField("flesh", "Flesh wounds", "int", 0, group="Wounds"),
        SheetField("trauma", "Traumatic wounds", "rows", {}, shape="map", group="Wounds",
                   columns=(column("location", "Location", "choice", choices=LOCATIONS, required=True),
                            column("count", "Wounds", "int", required=True))),
    ]


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them, and what the rules read when one is left out."""
    return (
        column("name", "Weapon", required=True),
        column("skill", "Skill", default="", suggestions=tuple(SAMPLE_SKILLS)),
        column("damage", "Damage", default="2d6", help="dice, e.g. 2d6+1"),
        column("mode", "Mode", "choice", "single", choices=WEAPON_MODES),
        column("melee", "Melee", "bool", False, more=True),
        column("stun", "Stuns", "bool", False, more=True),
    )


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
        "attribute_names": dict(ATTRIBUTE_WORDS),  # the sheet's labels, in the reader's language
        "location_names": dict(LOCATION_WORDS),
        "mode_names": dict(MODE_WORDS),
        **wound_state(sheet, s),
    }




def _whole(value, field: tuple) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise SheetError(field, f"must be a whole number, 0 or more (got {value!r})",
                         f"{'.'.join(map(str, field))} must be a whole number, 0 or more (got {value!r})")
    return value


def validate_sheet(sheet: dict) -> None:
    """SheetError naming the first field the rules cannot use."""
    attributes = sheet.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise SheetError(("attributes",), "must be a table of attribute: rating",
                         "attributes must be a table of attribute: rating")
    for name, value in attributes.items():
        if name not in ATTRIBUTES:
            raise SheetError(("attributes", name), f"not an attribute; they are {', '.join(ATTRIBUTES)}")
        _whole(value, ("attributes", name))
    skills = sheet.get("skills") or {}
    if not isinstance(skills, dict):
        raise SheetError(("skills",), "must be a table of skill: rank", "skills must be a table of skill: rank")
    for name, value in skills.items():
        _whole(value, ("skills", name))
    bonus = sheet.get("initiative_bonus", 0)
    if not isinstance(bonus, int) or isinstance(bonus, bool):
        raise SheetError(("initiative_bonus",), f"must be a whole number (got {bonus!r})",
                         f"initiative_bonus must be a whole number (got {bonus!r})")
    _whole(sheet.get("flesh", 0), ("flesh",))
    trauma = sheet.get("trauma") or {}
    if not isinstance(trauma, dict):
        raise SheetError(("trauma",), "must be a table of location: count", "trauma must be a table of location: count")
    for loc, n in trauma.items():
        if loc not in LOCATIONS:
            raise SheetError(("trauma", loc, "location"), f"not a location; they are {', '.join(LOCATIONS)}",
                             f"trauma.{loc}: not a location; they are {', '.join(LOCATIONS)}")
        _whole(n, ("trauma", loc))
    weapons = sheet.get("weapons") or []
    if not isinstance(weapons, list):
        raise SheetError(("weapons",), "must be a list of weapons, each with a name",
                         "weapons must be a list of weapons, each with a name")
    seen = set()
    for i, w in enumerate(weapons):
        if not isinstance(w, dict) or not w.get("name"):
            raise SheetError(("weapons", i, "name"), "needs a name", f"weapons[{i}] needs a name")
        name = w["name"]
        if name in seen:
            raise SheetError(("weapons", i, "name"), f"two weapons named {name!r}", f"weapons: two weapons named {name!r}")
        seen.add(name)
        if w.get("mode", "single") not in WEAPON_MODES:
            raise SheetError(("weapons", i, "mode"), f"must be one of {', '.join(WEAPON_MODES)}",
                             f"weapons.{name}.mode must be one of {', '.join(WEAPON_MODES)}")
        try:
            parse(str(w.get("damage", "2d6")))
        except DiceError as exc:
            raise SheetError(("weapons", i, "damage"), str(exc), f"weapons.{name}.damage: {exc}") from None
