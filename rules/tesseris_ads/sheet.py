"""The Tesseris character sheet: fields, the sample sheet, reading values,
derived numbers (*Tesseris Combat*, "Stamina", "Wounds", "Armor", "Bulk",
"Initiative", "Movement Actions")."""

from __future__ import annotations

import functools

from ..text import say
from ..system import RuleError, SheetError, SheetField, column
from ..system import Modifier
from .checks import wound_penalty
from .data import SKILL_WORDS, rank_words
from .data import BASE_TICKS, CHARACTERISTICS, HUMAN_SPEED, MAX_WOUNDS, SKILL_CHARACTERISTIC, SKILLS, STATUS_EFFECTS


def num(value, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def char(sheet: dict, name: str) -> int:
    """A characteristic rank (0 when missing)."""
    return num(sheet.get(name, (sheet.get("characteristics") or {}).get(name, 0)))


def skill(sheet: dict, name: str | None) -> int:
    """A skill rank: a top-level field or an entry of ``skills`` (0 when untrained)."""
    if not name:
        return 0
    if name in sheet and name not in CHARACTERISTICS:
        return num(sheet[name])
    return num((sheet.get("skills") or {}).get(name, 0))


def skill_characteristic(sheet: dict, name: str) -> str:
    """Which characteristic's dT a skill rolls (a sheet may override it)."""
    own = (sheet.get("skill_characteristics") or {}).get(name)
    return own or SKILL_CHARACTERISTIC.get(name, "agility")


def test_pool(sheet: dict, skill_name: str, characteristic: str | None = None) -> tuple[int, list[Modifier]]:
    """The dT pool and the rank of a skill test: the characteristic's rank in dT, the
    skill rank added (the core dT facts: "Melee Skill + Agility (dT)")."""
    ch = characteristic or skill_characteristic(sheet, skill_name)
    rank = Modifier(rank_words(skill_name), skill(sheet, skill_name), "sheet")
    return max(0, char(sheet, ch)), [rank]


def max_stamina(strength: int, willpower: int, wounds: int = 0, bonus: int = 0) -> int:
    """Current maximum Stamina: 10 + 2 x Strength + Willpower + bonus, less one per Wound
    (*Tesseris Combat*, "Stamina", "Taking Wounds")."""
    return max(0, 10 + 2 * strength + willpower + bonus - max(0, wounds))


def bulk(sheet: dict) -> int:
    """Total Bulk of worn armour as a positive number of successes lost ("Bulk")."""
    return sum(abs(num((sheet.get(slot) or {}).get("bulk", 0))) for slot in ("armour", "cloak"))


def full_max_stamina(sheet: dict) -> int:
    return max_stamina(char(sheet, "strength"), char(sheet, "willpower"), 0, num(sheet.get("stamina_bonus")))


def current_max_stamina(sheet: dict) -> int:
    return max_stamina(
        char(sheet, "strength"), char(sheet, "willpower"), num(sheet.get("wounds")), num(sheet.get("stamina_bonus"))
    )


def stamina(sheet: dict) -> int:
    """Current Stamina (full when the sheet does not say), never above the current maximum."""
    top = current_max_stamina(sheet)
    value = sheet.get("stamina")
    return top if value is None else max(0, min(num(value), top))


def max_wounds(sheet: dict) -> int:
    return num(sheet.get("max_wounds"), MAX_WOUNDS) or MAX_WOUNDS


def speed(sheet: dict) -> int:
    value = sheet.get("speed")
    return HUMAN_SPEED if value is None else num(value)


#: the unarmed strike every character has, whatever its sheet lists
UNARMED = "unarmed"


def weapon_list(sheet: dict) -> list[dict]:
    """The weapons an attack may name, as ``{"key", "label", "data"}``: the sheet's (a table
    by key or a list of entries with a key or a name), then the unarmed strike."""
    weapons = sheet.get("weapons") or {}
    if isinstance(weapons, list):
        weapons = {str(w.get("key") or w.get("name") or i): w for i, w in enumerate(weapons) if isinstance(w, dict)}
    out = [{"key": str(k), "label": str((w or {}).get("name") or k), "data": w if isinstance(w, dict) else {}}
           for k, w in weapons.items()]
    if UNARMED not in weapons:
        out.append({"key": UNARMED, "label": say("Unarmed"), "data": weapon(sheet, UNARMED)})
    return out


def weapon(sheet: dict, key: str | None) -> dict:
    weapons = sheet.get("weapons") or {}
    if isinstance(weapons, list):
        weapons = {str(w.get("key") or w.get("name") or i): w for i, w in enumerate(weapons)}
    if key is None:
        if not weapons:
            return {"name": say("Unarmed"), "kind": "melee", "damage": 0, "skill": "melee"}
        key = next(iter(weapons))
    if key not in weapons and key == UNARMED:
        return {"key": UNARMED, "name": say("Unarmed"), "kind": "melee", "damage": 0, "skill": "melee"}
    if key not in weapons:
        raise RuleError(say("no weapon {value} on the sheet; it has: {weapons}", value=repr(key), weapons=", ".join(weapons))
                        if weapons else say("no weapon {value} on the sheet; it has: none", value=repr(key)))
    return {"key": key, **weapons[key]}


def _refused(path: tuple, reason: str, field: str | None = None) -> SheetError:
    """A sheet entry refused, its reason in words: the message names the entry as the sheet does (``weapons.Colt.rof``,
    data) before the reason."""
    where = field or ".".join(str(p) for p in (path if isinstance(path, tuple) else (path,)))
    return SheetError(path, reason, say("{field}: {reason}", field=where, reason=reason))


def _int(value, field: str | tuple, low: int | None = 0, allow_none: bool = False) -> None:
    path = field if isinstance(field, tuple) else (field,)
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, bool) or value is None or int(str(value)) != float(str(value)):
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise _refused(path, say("a whole number, not {value}", value=repr(value))) from None
        value = int(str(value))
    if low is not None and value < low:
        raise _refused(path, say("{low} or more, not {value}", low=low, value=value))


WEAPON_KINDS = ("melee", "ranged", "thrown")
RELIABILITY = ("reliable", "normal", "unreliable")


def _weapon_entries(weapons) -> list[tuple[str, object]]:
    if isinstance(weapons, dict):
        return list(weapons.items())
    return [(str(w.get("key") or w.get("name") or i) if isinstance(w, dict) else str(i), w) for i, w in enumerate(weapons)]


def validate_sheet(sheet: dict) -> None:
    """SheetError naming the first field the rules cannot use: ranks, Stamina, Wounds and the
    gear's numbers whole and not negative, weapons of a known kind with a listed range when
    ranged, [single, burst, auto] rates of fire, known status effects."""
    from .status import effect_of  # the status table; status imports this module's helpers

    for key in (*CHARACTERISTICS, "speed", *SKILLS, "wounds", "max_wounds", "ego", "fate_points", "mayhem"):
        if key in sheet:
            _int(sheet[key], key)
    _int(sheet.get("stamina"), "stamina", allow_none=True)
    for key in ("stamina_bonus", "tick_bonus", "initiative_bonus", "soak_bonus"):
        if key in sheet:
            _int(sheet[key], key, low=None)
    for slot in ("armour", "cloak"):
        gear = sheet.get(slot)
        if gear is None:
            continue
        if not isinstance(gear, dict):
            raise _refused((slot,), say("a table of name, ap, bulk"))
        _int(gear.get("ap", 0), (slot, "ap"))
        _int(gear.get("bulk", 0), (slot, "bulk"), low=None)
    weapons = sheet.get("weapons") or {}
    if not isinstance(weapons, (dict, list)):
        raise _refused(("weapons",), say("a table of weapons by key"))
    for key, w in _weapon_entries(weapons):
        where = ("weapons", key)
        if not isinstance(w, dict):
            raise _refused(where, say("a table (name, kind, damage, ...)"))
        kind = w.get("kind", "melee")
        if kind not in WEAPON_KINDS:
            raise _refused((*where, "kind"), say("one of {known}, not {value}", known=", ".join(WEAPON_KINDS), value=repr(kind)))
        for k in ("damage", "ap", "reach", "ammo", "capacity"):
            if w.get(k) is not None:
                _int(w[k], (*where, k))
        if kind != "melee":
            _int(w.get("range"), (*where, "range"), low=1)
        if w.get("rof") is not None:
            if not isinstance(w["rof"], list) or not 1 <= len(w["rof"]) <= 3:
                raise _refused((*where, "rof"), say("[single, burst, auto] bullets"))
            for i, r in enumerate(w["rof"]):
                _rof(r, where, i)
        if w.get("reliability", "normal") not in RELIABILITY:
            raise _refused((*where, "reliability"), say("reliable, normal or unreliable"))
    statuses = sheet.get("statuses") or []
    if not isinstance(statuses, list):
        raise _refused(("statuses",), say("a list of status effects"))
    for i, st in enumerate(statuses):
        name = st.get("name") if isinstance(st, dict) else st
        try:
            effect_of(str(name))
        except RuleError:
            raise _refused(("statuses", i, "name"), say("unknown status effect {value}", value=repr(name)),
                           f"statuses[{i}]") from None


def _rof(value, where: tuple, i: int) -> None:
    try:
        _int(value, (*where, "rof", i))
    except SheetError as exc:
        raise _refused(exc.path, exc.reason, f"{'.'.join(map(str, where))}.rof[{i}]") from None


def _gear() -> tuple[SheetField, ...]:
    return (column("name", "Name", default=""), column("ap", "AP", "int", 0), column("bulk", "Bulk", "int", 0))


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them (the first, its key, is what an attack names), and
    what the rules read when one is left out."""
    c = column
    return (
        c("key", "Key", help="what an attack names; empty: the name", more=True),
        c("name", "Weapon", required=True),
        c("kind", "Kind", "choice", "melee", choices=tuple((k, k) for k in WEAPON_KINDS)),  # keys, with their words
        c("skill", "Skill", "choice", "", choices=tuple((k, k.replace("_", " ")) for k in SKILLS),
          help="empty: melee; rifles for a ranged weapon"),
        c("damage", "Damage", "int", 0, help="melee adds STR"),
        c("range", "Range", "int", None, help="squares; ranged and thrown only"),
        c("ap", "AP", "int", 0),
        c("rof", "RoF (bullets)", "ints", None, choices=(("single", "single"), ("burst", "burst"), ("auto", "auto"))),
        c("ammo", "Ammo", "int", None),
        c("reliability", "Reliability", "choice", "normal", choices=tuple((k, k) for k in RELIABILITY), more=True),
        c("capacity", "Magazine", "int", None, more=True),
        c("reach", "Reach", "int", None, more=True),
        c("impact", "Impact", "bool", False, more=True),
        c("jams", "May jam", "bool", False, more=True),
        c("light", "Light", "bool", False, more=True),
    )


def sheet_fields() -> list[SheetField]:
    f = SheetField
    fields = [
        f("strength", "Strength", default=3, group="Characteristics"),
        f("agility", "Agility", default=3, group="Characteristics"),
        f("perception", "Perception", default=3, group="Characteristics"),
        f("intelligence", "Intelligence", default=2, group="Characteristics"),
        f("willpower", "Willpower", default=3, group="Characteristics"),
        f("charisma", "Charisma", default=2, group="Characteristics"),
        f("speed", "Speed", default=3, help="squares per Move action", group="Characteristics"),
    ]
    defaults = {"melee": 2, "pistols": 1, "rifles": 2, "athletics": 1, "acrobatics": 1, "resolve": 1, "awareness": 2, "stealth": 1, "scrutiny": 1}
    for key in SKILLS:
        label = key.replace("_", " ").title()
        fields.append(f(key, label, default=defaults.get(key, 0), help=f"rolls {SKILL_CHARACTERISTIC[key].title()} dT", group="Skills"))
    fields += [
        f("stamina", "Stamina (current)", default=None, help="empty: full", group="Health"),
        f("stamina_bonus", "Bonus Stamina", default=0, group="Health"),
        f("wounds", "Wounds", default=0, group="Health"),
        f("max_wounds", "Wounds before death", default=10, group="Health"),
        f("ego", "Ego", default=10, group="Health"),
        f("fate_points", "Fate Points", default=1, group="Health"),
        f("mayhem", "Mayhem Points", default=0, help="lost at the end of the combat", group="Health"),
        f("tick_bonus", "Bonus ticks per round", default=0, group="Combat"),
        f("initiative_bonus", "Initiative misc.", default=0, group="Combat"),
        f("soak_bonus", "Soak misc.", default=0, group="Combat"),
        f("armour", "Armour slot", kind="rows", shape="record", columns=_gear(), default={"name": "Leather coat", "ap": 2, "bulk": 0}, group="Gear"),
        f("cloak", "Cloak slot", kind="rows", shape="record", columns=_gear(), default={"name": "", "ap": 0, "bulk": 0}, help="covers torso and legs", group="Gear"),
        f("weapons", "Weapons", kind="rows", shape="table", columns=weapon_columns(), default={}, group="Gear"),
        f("feats", "Feats", kind="rows", shape="values", columns=(column("name", "Feat", required=True),), default=[], group="Traits"),
        f("talents", "Talents", kind="rows", shape="values", columns=(column("name", "Talent", required=True),), default=[], group="Traits"),
        f("statuses", "Status effects", kind="rows", default=[], group="Status", columns=(
            column("name", "Status effect", "choice", choices=tuple(STATUS_EFFECTS), required=True),
            column("rounds", "Rounds left", "int", None, help="empty: until removed"),
            column("source", "From", more=True),
        )),
        f("is_player", "Player character", kind="bool", default=True, group="Status"),
    ]
    return fields


@functools.lru_cache(maxsize=1)
def _field_defaults() -> tuple:
    """The sheet fields' defaults, read once (a token without a character is given the default sheet each time
    the rules read it: the foes' plans read it a thousand times, #60)."""
    return tuple((fld.key, fld.default) for fld in sheet_fields())


def _fresh(value):
    """A copy of a default (plain JSON: dicts, lists, scalars) the sheet may change (a scalar is kept as it is,
    without a call: the default sheet is made a thousand times a reckoning, #60)."""
    if isinstance(value, dict):
        return {k: _fresh(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def default_sheet() -> dict:
    """The sample character ("Jim"): a copy of its own each call of the one made once (a token without a character
    is given it whenever the rules read its sheet: a thousand times a reckoning of the foes' plans, #60)."""
    return _fresh(_default_made())


@functools.lru_cache(maxsize=1)
def _default_made() -> dict:
    return _made_default()  # never handed out: default_sheet gives copies


def _made_default() -> dict:
    sheet = {key: _fresh(value) if isinstance(value, (dict, list)) else value for key, value in _field_defaults()}
    sheet.update(
        name="Jim",
        armour={"name": "Armoured coat", "ap": 3, "bulk": -1},
        cloak={"name": "Duster", "ap": 1, "bulk": 0},
        weapons={
            "rifle": {"name": "Assault rifle", "kind": "ranged", "skill": "rifles", "damage": 6, "range": 30, "ap": 1, "rof": [1, 3, 8], "reliability": "normal", "jams": True, "ammo": 30},
            "pistol": {"name": "Pistol", "kind": "ranged", "skill": "pistols", "damage": 4, "range": 12, "ap": 0, "rof": [1, 0, 0], "reliability": "reliable", "jams": True, "ammo": 8},
            "knife": {"name": "Knife", "kind": "melee", "skill": "melee", "damage": 2, "ap": 0, "light": True},
            "club": {"name": "Club", "kind": "melee", "skill": "melee", "damage": 3, "impact": True},
        },
        feats=[],
        talents=[],
        statuses=[],
    )
    return sheet


def derived(sheet: dict) -> dict:
    """Numbers the sheet shows and the rules use."""
    st = stamina(sheet)
    wounds = num(sheet.get("wounds"))
    b = bulk(sheet)
    out = {
        "max_stamina": full_max_stamina(sheet),
        "current_max_stamina": current_max_stamina(sheet),
        "stamina": st,
        "wounds": wounds,
        "max_wounds": max_wounds(sheet),
        "wound_penalty": wound_penalty(wounds, st),
        "bloodied": st <= 0,
        "ticks_per_round": BASE_TICKS + num(sheet.get("tick_bonus")),
        "initiative_bonus": char(sheet, "agility") + speed(sheet) + num(sheet.get("initiative_bonus")),
        "bulk": b,
        "armour_ap": num((sheet.get("armour") or {}).get("ap")),
        "cloak_ap": num((sheet.get("cloak") or {}).get("ap")),
        "move": speed(sheet),
        "run": 4 * speed(sheet),
        "sprint": 6 * speed(sheet),
        "defenses": {
            "duck": say("{pool}dT, re-roll {n}, -{bulk}", pool=char(sheet, "agility") + char(sheet, "perception"),
                        n=char(sheet, "intelligence"), bulk=b),
            "dodge": f"{char(sheet, 'agility')}dT + {skill(sheet, 'acrobatics')} - {b}",
            "block": f"{char(sheet, 'strength')}dT + {skill(sheet, 'athletics')}",
            "parry": f"{char(sheet, 'agility')}dT + {skill(sheet, 'melee')}",
        },
        "defense_names": {"duck": say("Duck"), "dodge": say("Dodge"), "block": say("Block"), "parry": say("Parry")},
        "skill_names": dict(SKILL_WORDS),
        "slot_names": {"armour": say("Armour"), "cloak": say("Cloak")},
        "reliability_names": {"reliable": say("reliable"), "unreliable": say("unreliable")},
        "dead": wounds >= max_wounds(sheet) or wounds >= full_max_stamina(sheet),
    }
    return out
