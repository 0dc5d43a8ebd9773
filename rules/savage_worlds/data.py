"""Tables and constants of *Savage Worlds Combat System Reference* and the
Savage Worlds core facts: target numbers, the action deck, weapons' tables,
object Toughness, cover, template sizes, and the per-game settings."""

from __future__ import annotations
from ..text import say

CORE = "Savage Worlds core facts"

TN = 4
RAISE = 4
WILD_DIE = "d6"
MAX_WOUNDS = 3
DIE_SIDES = (4, 6, 8, 10, 12)

ATTRIBUTES = ("agility", "smarts", "spirit", "strength", "vigor")
COMBAT_SKILLS = ("fighting", "shooting", "athletics", "notice", "riding")

# ---- Initiative (Action Cards): a poker deck with two Jokers
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("S", "H", "D", "C")
JOKERS = ("RJ", "BJ")
JOKER_BONUS = 2  # "+2 to all trait checks and damage"

DEFAULT_CARD_EDGES = {
    # extra cards drawn, which one is kept, and Quick's redraw threshold
    "Level Headed": {"extra": 1, "keep": "best"},
    "Improved Level Headed": {"extra": 2, "keep": "best"},
    "Quick": {"redraw_at_or_below": 5},
    "Hesitant": {"extra": 1, "keep": "worst"},
}

# ---- Actions Per Turn
MULTI_ACTION_STEP = -2  # per action beyond the first, to every action that turn

# ---- movement (core facts): Pace 6", running adds a d6, 2" to stand up
PACE = 6
RUN_DIE = "d6"
STAND_COST = 2
RUNNING_PENALTY = -2

# ---- Ranged Attacks
RANGE_MODIFIERS = {"short": 0, "medium": -2, "long": -4, "extreme": -8}
EXTREME_FACTOR = 4  # Extreme is up to 4x Long

# ---- Area Effect Attacks
BLAST_RADIUS = {"small": 1.0, "medium": 2.0, "large": 3.0}
DEVIATION_MULTIPLIER = {"short": 1, "medium": 2, "long": 3, "extreme": 4}
DEVIATION_DICE = {"thrown": "d6", "launched": "2d6"}
PRONE_AREA_REDUCTION = 4

# ---- Shotguns, Improvised Weapons, Object Toughness
SHOTGUN_DAMAGE = {"short": "3d6", "medium": "2d6", "long": "1d6"}

IMPROVISED = {
    # weight: (short, medium, long), damage, minimum Strength
    "light": ((3, 6, 12), "Str+d4", "d4"),
    "medium": ((2, 4, 8), "Str+d6", "d6"),
    "heavy": ((1, 2, 4), "Str+d8", "d8"),
}

OBJECT_TOUGHNESS = {
    "light door": 8,
    "heavy door": 10,
    "lock": 8,
    "firearm": 9,
    "handcuffs": 12,
    "knife": 10,
    "sword": 10,
    "medieval shield": 10,
    "modern shield": 12,
    "rope": 4,
}

# ---- the attacker's options (Savage Worlds core rules; attack_options lists them)
#: Called Shot: location -> (label, attack modifier, damage bonus)
CALLED_SHOTS = {
    "limb": ("Limb", -2, 0),
    "hand": ("Hand", -4, 0),
    "head": ("Head", -4, 4),
    "vitals": ("Vitals", -4, 4),
}
WILD_ATTACK = 2  # +2 Fighting, +2 damage, Vulnerable after
AIM_BONUS = 2  # Aim: +2 to the next Shooting or Athletics roll
RAPID_ATTACK = -4  # Rapid Attack: up to 3 melee attacks or 6 shots, each at -4
RAPID_MAX = {"melee": 3, "ranged": 6}
UNARMED_DEFENDER = 2
#: Bennies a Wild Card starts a session with (core rules)
SESSION_BENNIES = 3

# ---- cover (core facts): Light -2, Medium -4, Heavy -6, Near Total -8
COVER_LEVELS = (("light", -2, say("Light cover")), ("medium", -4, say("Medium cover")),
                ("heavy", -6, say("Heavy cover")), ("near_total", -8, say("Near Total cover")))


def default_settings() -> dict:
    """The per-game settings: readings a GM may want otherwise (help page lists them)."""
    return {
        "cover_thresholds": [0.25, 0.5, 0.75],
        "template_coverage": "touched",
        "cone_length": 9.0,
        "cone_width": 3.0,
        "line_length": 12.0,
        "card_edges": {k: dict(v) for k, v in DEFAULT_CARD_EDGES.items()},
        "max_actions": 3,
        "extreme_requires_aim": True,
        "area_cover_armor": {"light": 2, "medium": 4, "heavy": 6, "near_total": 8},
        "min_str_penalty": True,
        "shaken_recovery": "swade",
        # Gang Up: "Each adjacent enemy (not Stunned) gives +1": does the attacker count itself?
        # False (the usual reading): only the other adjacent foes; True: the attacker too
        "gang_up_counts_attacker": False,
        # Bennies a Wild Card holds when its sheet gives none at the start of a fight (a session's deal)
        "session_bennies": SESSION_BENNIES,
    }


def merged_settings(given: dict | None = None) -> dict:
    """The game's settings over the defaults."""
    return {**default_settings(), **(given or {})}

#: the skills' names as the breakdown, the log and the turn's actions show them (the editions' own words)
SKILL_WORDS = {"fighting": say("Fighting"), "shooting": say("Shooting"), "athletics": say("Athletics"),
               "riding": say("Riding")}
