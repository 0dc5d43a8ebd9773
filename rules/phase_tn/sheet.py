"""The character sheet of *Phase/TN Combat Sequence*: fields, the default sheet, derived values.

Attributes are rated 1-10 (5 is average, a reading: the document never
names its dice or its attribute range); skills add their rank to a roll.
"""

from __future__ import annotations

from ..dice import DiceError, parse
from ..system import SheetError, SheetField, column
from .checks import attr
from .data import MODE_WORDS
from .data import ATTRIBUTE_WORDS, ATTRIBUTES, LOCATION_TITLES, LOCATION_WORDS, LOCATIONS, resolve_settings
from .health import wound_state
from ..text import say

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
                   columns=(column("location", "Location", "choice", choices=tuple(LOCATION_TITLES.items()), required=True),
                            column("count", "Wounds", "int", required=True))),
    ]


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them, and what the rules read when one is left out."""
    return (
        column("name", "Weapon", required=True),
        column("skill", "Skill", default="", suggestions=tuple(SAMPLE_SKILLS)),
        column("damage", "Damage", default="2d6", help="dice, e.g. 2d6+1"),
        column("mode", "Mode", "choice", "single", choices=tuple(MODE_WORDS.items())),  # keys, with their words
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
        raise SheetError(field, say("must be a whole number, 0 or more (got {value})", value=repr(value)),
                         say("{field} must be a whole number, 0 or more (got {value})", field=".".join(map(str, field)),
                             value=repr(value)))
    return value


def validate_sheet(sheet: dict) -> None:
    """SheetError naming the first field the rules cannot use."""
    attributes = sheet.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise SheetError(("attributes",), say("must be a table of attribute: rating"),
                         say("{field} must be a table of attribute: rating", field="attributes"))
    for name, value in attributes.items():
        if name not in ATTRIBUTES:
            reason = say("not an attribute; they are {names}", names=", ".join(ATTRIBUTES))
            raise SheetError(("attributes", name), reason, say("{field}: {reason}", field=f"attributes.{name}", reason=reason))
        _whole(value, ("attributes", name))
    skills = sheet.get("skills") or {}
    if not isinstance(skills, dict):
        raise SheetError(("skills",), say("must be a table of skill: rank"),
                         say("{field} must be a table of skill: rank", field="skills"))
    for name, value in skills.items():
        _whole(value, ("skills", name))
    bonus = sheet.get("initiative_bonus", 0)
    if not isinstance(bonus, int) or isinstance(bonus, bool):
        raise SheetError(("initiative_bonus",), say("must be a whole number (got {value})", value=repr(bonus)),
                         say("{field} must be a whole number (got {value})", field="initiative_bonus", value=repr(bonus)))
    _whole(sheet.get("flesh", 0), ("flesh",))
    trauma = sheet.get("trauma") or {}
    if not isinstance(trauma, dict):
        raise SheetError(("trauma",), say("must be a table of location: count"),
                         say("{field} must be a table of location: count", field="trauma"))
    for loc, n in trauma.items():
        if loc not in LOCATIONS:
            reason = say("not a location; they are {names}", names=", ".join(LOCATIONS))
            raise SheetError(("trauma", loc, "location"), reason, say("{field}: {reason}", field=f"trauma.{loc}", reason=reason))
        _whole(n, ("trauma", loc))
    weapons = sheet.get("weapons") or []
    if not isinstance(weapons, list):
        raise SheetError(("weapons",), say("must be a list of weapons, each with a name"),
                         say("{field} must be a list of weapons, each with a name", field="weapons"))
    seen = set()
    for i, w in enumerate(weapons):
        if not isinstance(w, dict) or not w.get("name"):
            raise SheetError(("weapons", i, "name"), say("needs a name"), say("{field} needs a name", field=f"weapons[{i}]"))
        name = w["name"]
        if name in seen:
            reason = say("two weapons named {weapon}", weapon=repr(name))
            raise SheetError(("weapons", i, "name"), reason, say("{field}: {reason}", field="weapons", reason=reason))
        seen.add(name)
        if w.get("mode", "single") not in WEAPON_MODES:
            raise SheetError(("weapons", i, "mode"), say("must be one of {values}", values=", ".join(WEAPON_MODES)),
                             say("{field} must be one of {values}", field=f"weapons.{name}.mode", values=", ".join(WEAPON_MODES)))
        try:
            parse(str(w.get("damage", "2d6")))
        except DiceError as exc:
            reason = exc.args[0] if exc.args else str(exc)
            raise SheetError(("weapons", i, "damage"), reason, say("{field}: {reason}", field=f"weapons.{name}.damage",
                                                                     reason=reason)) from None
