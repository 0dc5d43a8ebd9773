"""The Atomic Tomorrow character sheet: fields, the sample sheet, validation, derived values.

Section "CHARACTER SHEET REFERENCE" of *Atomic Tomorrow Combat* (the x 5
values) and the core facts (attributes, skills, Dodge and Parry).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..system import RuleError, SheetError, SheetField, column
from ..text import Say, say
from .data import ARMOUR_WORDS, DEFENSE_WORDS, RANGE_LABELS, SKILL_WORDS, WOUND_STATE_TITLES
from .data import (
    ARMOUR_LEVELS,
    ATTRIBUTES,
    BLOCK_BONUS,
    COMBAT_SKILLS,
    DEFAULT_SETTINGS,
    MAX_WOUNDS,
    TWO_FISTED,
    WOUND_RATING_MAX,
    WOUND_RATING_MIN,
    check_level,
    check_wound_rating,
)
from .health import wound_state
from .ranges import weapon_ranges


def whole(value: Any, what: Any, lo: int | None = None, hi: int | None = None, path: tuple | None = None) -> int:
    """``value`` as a whole number in [lo, hi]; RuleError saying what is wrong (a SheetError at ``path``).
    ``what`` names the field in the rules' words (an attribute's capitals as the document prints them)."""
    def refuse(reason: str) -> RuleError:
        message = say("{what} is {reason}", what=what, reason=reason)
        return SheetError(path, reason, message) if path else RuleError(message)

    if isinstance(value, bool) or not isinstance(value, int):
        raise refuse(say("a whole number, not {value}", value=repr(value)))
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise refuse(say("{least} to {most}, not {value}", least=lo, most=hi, value=value))
    return value


def _piercing(value: Any, name: str) -> int:
    """A weapon's armour piercing, 0 to 3 (``whole``; its words made only for a refusal: a weapon is checked each
    time an attack or a plan reads it)."""
    if type(value) is int and 0 <= value <= 3:
        return value
    return whole(value, say("{weapon}: armour piercing", weapon=name), 0, 3)


def normalise_weapon(weapon: Mapping) -> dict:
    """A weapon entry checked: name, skill, Wound Rating 1-4, armour piercing, range bands."""
    if not isinstance(weapon, Mapping):
        raise RuleError(say("a weapon is a table of values, not {value}", value=repr(weapon)))
    name = str(weapon.get("name") or "").strip()
    if not name:
        raise RuleError(say("a weapon needs a name"))
    skill = str(weapon.get("skill") or "melee").lower()
    if skill not in COMBAT_SKILLS:
        raise RuleError(say("{weapon}: skill is one of {skills}, not {value}", weapon=name, skills=", ".join(COMBAT_SKILLS),
                            value=repr(skill)))
    out = {
        "name": name,
        "skill": skill,
        "wound_rating": check_wound_rating(weapon.get("wound_rating", 1)),
        "armour_piercing": _piercing(weapon.get("armour_piercing", 0), name),
        "ranges": weapon_ranges({**weapon, "skill": skill}),
        "area": bool(weapon.get("area", False)),
    }
    return out


def has_epithet(sheet: Mapping, epithet: str) -> bool:
    want = epithet.replace(" ", "-").lower()
    return any(str(e).strip().replace(" ", "-").lower() == want for e in sheet.get("epithets") or [])


def find_weapon(sheet: Mapping, key: str | None, settings: Mapping | None = None) -> dict:
    """A weapon of the sheet by name (or list index); None means bare hands."""
    settings = settings or DEFAULT_SETTINGS
    if key is None or str(key).strip().lower() in ("", "unarmed", "fists"):
        return {
            "name": "Unarmed",
            "skill": "unarmed",
            "wound_rating": settings["unarmed_wound_rating"],
            "armour_piercing": 0,
            "ranges": ["engaged"],
            "area": False,
        }
    weapons = sheet.get("weapons") or []
    for index, weapon in enumerate(weapons):
        if str(weapon.get("name", "")).lower() == str(key).lower() or str(index) == str(key):
            return normalise_weapon(weapon)
    raise RuleError(say("no weapon {weapon} on the sheet", weapon=repr(key)))


def parry_skill(sheet: Mapping) -> int:
    """Parry: the sheet's own value, else the Melee skill with a melee weapon or the Unarmed skill.

    Section "DEFENSE OPTION" (parry needs a weapon or the Unarmed Combat
    skill) and the core facts (Parry uses the Unarmed or Melee skill).
    """
    if sheet.get("parry"):
        return int(sheet["parry"])
    has_melee = any(str(w.get("skill", "")).lower() == "melee" for w in sheet.get("weapons") or [])
    return max(int(sheet.get("melee", 0)) if has_melee else 0, int(sheet.get("unarmed", 0)))


def dodge_skill(sheet: Mapping) -> int:
    """Dodge: the sheet's own value, else REFLEX x 2 + 10 (core facts)."""
    if sheet.get("dodge"):
        return int(sheet["dodge"])
    return int(sheet.get("reflex", 0)) * 2 + 10


def validate_sheet(sheet: Mapping) -> dict:
    """The sheet checked and completed with defaults; RuleError names the first problem."""
    if not isinstance(sheet, Mapping):
        raise RuleError(say("a sheet is a table of fields"))
    out = default_sheet()
    out.update({k: copy.deepcopy(v) for k, v in sheet.items()})
    for attr in ATTRIBUTES:
        whole(out[attr], attr.upper(), 1, 30, path=(attr,))
    for skill in (*COMBAT_SKILLS, "parry", "dodge"):
        whole(out[skill], {**SKILL_WORDS, **DEFENSE_WORDS}.get(skill, skill.capitalize()), 0, 200, path=(skill,))
    whole(out["wounds"], say("wounds"), 0, MAX_WOUNDS, path=("wounds",))
    try:
        out["armour"] = check_level(out["armour"], ARMOUR_LEVELS, "armour")
    except RuleError as e:
        said = e.args[0] if e.args and isinstance(e.args[0], Say) else None
        reason = said.args.get("reason", said) if said is not None else str(e).removeprefix("armour is ")
        raise SheetError(("armour",), reason, said or str(e)) from None
    out["shield"] = bool(out["shield"])
    if not isinstance(out["epithets"], list):
        raise SheetError(("epithets",), say("a list of names"), say("{field} are a list of names", field="epithets"))
    out["epithets"] = [str(e) for e in out["epithets"]]
    if not isinstance(out["weapons"], list):
        raise SheetError(("weapons",), say("a list"), say("{field} are a list", field="weapons"))
    checked = []
    for index, weapon in enumerate(out["weapons"]):
        try:
            checked.append(normalise_weapon(weapon))
        except RuleError as e:
            reason = e.args[0] if e.args and isinstance(e.args[0], Say) else str(e)
            raise SheetError(("weapons", index, *_weapon_column(weapon, e)), reason,
                             say("weapons, entry {n}: {reason}", n=index + 1, reason=reason)) from None
    out["weapons"] = checked
    return out


def _weapon_column(weapon: Any, error: RuleError) -> tuple[str, ...]:
    """Which of a weapon's fields ``normalise_weapon`` refused (checked again one by one, in its order)."""
    if not isinstance(weapon, Mapping):
        return ()
    if not str(weapon.get("name") or "").strip():
        return ("name",)
    skill = str(weapon.get("skill") or "melee").lower()
    if skill not in COMBAT_SKILLS:
        return ("skill",)
    for key, check in (("wound_rating", lambda: check_wound_rating(weapon.get("wound_rating", 1))),
                       ("armour_piercing", lambda: whole(weapon.get("armour_piercing", 0), "", 0, 3)),
                       ("ranges", lambda: weapon_ranges({**weapon, "skill": skill}))):
        try:
            check()
        except RuleError:
            return (key,)
    return ()


def weapon_list(sheet: Mapping) -> list[dict]:
    """``{"key", "label", "data"}`` for bare hands and each weapon that checks: what an attack may name.

    The key is the weapon's name, or its list index when an earlier weapon
    has the same name (``find_weapon`` takes either).
    """
    unarmed = find_weapon({}, None)
    out = [{"key": "Unarmed", "label": SKILL_WORDS["unarmed"], "data": unarmed}]
    seen = {"unarmed", "", "fists"}
    weapons = sheet.get("weapons") if isinstance(sheet, Mapping) else None
    for index, weapon in enumerate(weapons if isinstance(weapons, list) else []):
        try:
            w = normalise_weapon(weapon)
        except RuleError:
            continue
        key = w["name"] if w["name"].lower() not in seen else str(index)
        seen.add(key.lower())
        out.append({"key": key, "label": w["name"], "data": w})
    return out


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them, and what the rules read when one is left out."""
    return (
        column("name", "Weapon", required=True),
        column("skill", "Skill", "choice", "melee", choices=tuple(SKILL_WORDS.items())),  # keys, with their words
        column("wound_rating", "Wound Rating", "int", 1, choices=tuple(range(WOUND_RATING_MIN, WOUND_RATING_MAX + 1))),
        column("armour_piercing", "Armour piercing", "int", 0, choices=(0, 1, 2, 3)),
        column("ranges", "Ranges", "set", None, choices=tuple(RANGE_LABELS.items()),
               help="none ticked: Engaged for melee and unarmed"),
        column("area", "Area attack", "bool", False),
    )


def sheet_fields() -> list[SheetField]:
    """The fields of the sheet form."""
    attrs = [
        SheetField(a, a.upper(), "int", d, help="3-18 for humans; a check is x 5 %", group="attributes")
        for a, d in zip(ATTRIBUTES, (12, 13, 11, 10, 9, 12, 10))
    ]
    return [
        *attrs,
        SheetField("unarmed", "Unarmed", "int", 34, help="%", group="combat"),
        SheetField("melee", "Melee", "int", 34, help="%", group="combat"),
        SheetField("ranged", "Ranged", "int", 46, help="%", group="combat"),
        SheetField(
            "parry", "Parry", "int", 0, help="%; 0 = Melee with a melee weapon, else Unarmed", group="defense"
        ),
        SheetField("dodge", "Dodge", "int", 0, help="%; 0 = REFLEX x 2 + 10", group="defense"),
        SheetField("shield", "Shield", "bool", False, help="allows Block (+20%)", group="defense"),
        SheetField("armour", "Armour", "choice", "light", choices=tuple(ARMOUR_WORDS.items()), group="defense"),
        SheetField("epithets", "Epithets", "rows", [], shape="values", group="traits",
                   columns=(column("name", "Epithet", required=True, suggestions=(TWO_FISTED,)),)),
        SheetField("weapons", "Weapons", "rows", [], columns=weapon_columns(), group="weapons"),
        SheetField("wounds", "Wounds", "int", 0, help="0-5", group="condition"),
    ]


def default_sheet() -> dict:
    """A sample character: the sheet fields' defaults with a blast pistol and a vibro-knife."""
    sheet = {f.key: copy.deepcopy(f.default) for f in sheet_fields()}
    sheet["weapons"] = [
        {"name": "Blast pistol", "skill": "ranged", "wound_rating": 2, "armour_piercing": 0,
         "ranges": ["near", "far"], "area": False},
        {"name": "Vibro-knife", "skill": "melee", "wound_rating": 1, "armour_piercing": 0,
         "ranges": ["engaged"], "area": False},
    ]
    return sheet


def derived(sheet: Mapping) -> dict:
    """Section "CHARACTER SHEET REFERENCE": the x 5 values, and the defenses."""
    s = with_defaults(sheet)
    parry = parry_skill(s)
    wounds = int(s.get("wounds", 0))
    return {
        "soak": int(s["grit"]) * 5,
        "initiative": int(s["reflex"]) * 5,
        "last_stand": int(s["nerve"]) * 5,
        "incapacitated_check": int(s["grit"]),
        "parry": parry,
        "block": parry + BLOCK_BONUS if s.get("shield") else None,
        "dodge": dodge_skill(s),
        "armour_reduction": ARMOUR_LEVELS.get(str(s.get("armour", "none")).lower(), 0),
        "two_fisted": has_epithet(s, TWO_FISTED),
        "wound_state": wound_state(min(max(wounds, 0), MAX_WOUNDS)),
        "wounds_left": MAX_WOUNDS - min(max(wounds, 0), MAX_WOUNDS),
        # the sheet's words in the reader's language (the attributes stay as the document prints them)
        "armour_names": dict(ARMOUR_WORDS), "skill_names": dict(SKILL_WORDS), "range_names": dict(RANGE_LABELS),
        "wound_state_names": dict(WOUND_STATE_TITLES),
    }


def with_defaults(sheet: Mapping) -> dict:
    """The sheet over the sample sheet, so a sparse sheet still has every field (a new dict)."""
    out = {**_SAMPLE, **sheet}
    if "weapons" not in sheet:
        out["weapons"] = copy.deepcopy(_SAMPLE["weapons"])
    if "epithets" not in sheet:
        out["epithets"] = []
    return out


#: the sample sheet, built once; never handed out without a copy
_SAMPLE = default_sheet()


def _weapon(name: str, skill: str, wound_rating: int, ranges: list[str], armour_piercing: int = 0,
            area: bool = False) -> dict:
    return {"name": name, "skill": skill, "wound_rating": wound_rating, "armour_piercing": armour_piercing,
            "ranges": ranges, "area": area}


def sample_encounter() -> list[dict]:
    """A few named combatants for a demo fight at the rocket-port of :data:`DEMO_ZONES`:
    ``{"name", "side" ("pc"/"npc"), "sheet", "position"}`` (a zone id), new dicts on each call.
    Weapons from the core facts' list (a blast pistol 2, a blast rifle 3, a knife 1)."""
    def sheet(**over) -> dict:
        return {**default_sheet(), **over}

    pistol = _weapon("Blast pistol", "ranged", 2, ["near", "far"])
    return [
        {"name": "Captain Nova Sterling", "side": "pc", "position": "landing_pad",
         "sheet": sheet(reflex=15, nerve=14, grit=12, ranged=62, melee=40, armour="light",
                        epithets=["Two-Fisted"],
                        weapons=[pistol, _weapon("Vibro-knife", "melee", 1, ["engaged"])])},
        {"name": "Dr. Zara Quill", "side": "pc", "position": "landing_pad",
         "sheet": sheet(savvy=16, reflex=12, grit=10, ranged=48, armour="none",
                        weapons=[_weapon("Laser pistol", "ranged", 2, ["near", "far"])])},
        {"name": "Martian Raider", "side": "npc", "position": "cargo_bay",
         "sheet": sheet(brawn=14, reflex=11, grit=13, ranged=45, melee=50, armour="medium", shield=True,
                        weapons=[_weapon("Blast rifle", "ranged", 3, ["far", "distant"]),
                                 _weapon("Raider's axe", "melee", 2, ["engaged"])])},
        {"name": "Robot Sentry", "side": "npc", "position": "control_tower",
         "sheet": sheet(brawn=16, reflex=9, nerve=18, grit=16, ranged=40, armour="heavy",
                        weapons=[_weapon("Gauss rifle", "ranged", 3, ["far", "distant"], armour_piercing=1)])},
    ]
