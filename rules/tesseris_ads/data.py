"""Tesseris (ADS) tables and constants: the numbers of the rules, the cover
materials, the range bands, every combat action with its tick cost and
modifiers, the status effects, the skills and what they roll, and the default
per-game settings (the readings where the document is silent).

Sources are sections of *Tesseris Combat*: "Ticks", "Melee Attack Actions",
"Ranged Attack Actions", "Miscellaneous Attack Actions", "Defensive Actions",
"Movement Actions", "Miscellaneous Actions", "Social Combat Actions",
"Common Physical Combat Modifiers", "Cover Materials Reference Chart",
"Physical Status Effects", "Social Status Effects".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..text import say

BASE_TICKS = 5  # Ticks: 5 per round plus bonuses
FREE_REACTIONS = 1
HUMAN_SPEED = 3  # Movement Actions: human base speed
MAX_WOUNDS = 10  # Wounds: "All characters can take up to 10 wounds"
STAMINA_PER_WOUND = 5  # Taking Wounds: one Wound per 5 Stamina damage from one hit
WOUNDS_PER_PENALTY = 3  # Effects of Wounds: -1 per 3 Wounds when out of Stamina
BULLET_STEP = 2  # Ranged Weapons and Multiple Shots: -2 cumulative per bullet
CRITICAL_SUCCESSES = 6  # Defending: 6 or more successes is a critical hit
SECTION_YARDS = 1  # Destroying Cover: a section is one 1-yard line segment
SURPRISE_REACTION_TICKS = 3  # Combat Order 1: the surprised react with up to three ticks
CLOAK_LOCATIONS = ("torso", "legs")  # Armor: the cloak slot does not cover arms or head

#: per-game settings: the readings where the document is silent (listed on the help page)
DEFAULT_SETTINGS = {
    "range_gap_modifier": 0,
    "prone_modifier": 2,
    "critical_hit": "plus_d10",
    "critical_basis": "net",
    "bulk_applies_to": "all",
    "jam_basis": "total",
    "take_cover_reaction_ticks": 2,
    "cover_min_fraction": 0.5,
    "wall_cover_material": "stone",
    "default_hit_location": "torso",
    "default_defense": "best",
    "delay_forfeit_after": 2,
    "spend_ticks": True,
    "dejected_willpower": "table",
    "move_remainder": "turn",
}

#: Cover Materials Reference Chart: (Armour Points, Structure Points per section)
COVER_MATERIALS: dict[str, tuple[int, int]] = {
    "wood_thin": (2, 10),
    "wood_thick": (3, 15),
    "wood_reinforced": (4, 20),
    "stone": (8, 30),
    "sandbag": (18, 90),
    "concrete": (25, 125),
}

COVER_MATERIAL_LABELS: dict[str, str] = {
    "wood_thin": say("Wood, thin (~1 in.)"),
    "wood_thick": say("Wood, thick (2-3 in.)"),
    "wood_reinforced": say("Wood, reinforced (4-6 in.)"),
    "stone": say("Stone wall (6-8 in.)"),
    "sandbag": say("Sandbag wall (10 in.)"),
    "concrete": say("Concrete bunker (12-16 in.)"),
}

#: other spellings a map editor or an imported map may use for the same materials
_MATERIAL_ALIASES = {
    "wood": "wood_thin",
    "thin_wood": "wood_thin",
    "thick_wood": "wood_thick",
    "reinforced_wood": "wood_reinforced",
    "stone_wall": "stone",
    "sandbags": "sandbag",
    "sandbag_wall": "sandbag",
    "concrete_bunker": "concrete",
    "bunker": "concrete",
}


#: Common Physical Combat Modifiers, the range rows: (name, modifier)
RANGE_BANDS = ("point_blank", "short", "medium", "long", "far", "extreme")
RANGE_BAND_MODIFIERS = {"point_blank": 2, "short": 1, "medium": 0, "long": -1, "far": -2, "extreme": -4}
RANGE_BAND_LABELS = {
    "point_blank": say("Point blank (2 squares or less)"),
    "short": say("Short (4 squares or less)"),
    "medium": say("Medium (within the listed range)"),
    "long": say("Long (up to 1.5x the listed range)"),
    "far": say("Far (up to 2x the listed range)"),
    "extreme": say("Extreme (up to 3x the listed range)"),
}
#: the same on a hex map, whose distances are hexes (#58)
RANGE_BAND_LABELS_HEX = {**RANGE_BAND_LABELS, "point_blank": say("Point blank (2 hexes or less)"),
                         "short": say("Short (4 hexes or less)")}

CHARACTERISTICS = ("strength", "agility", "perception", "intelligence", "willpower", "charisma", "speed")

#: skill -> the characteristic whose rank is the number of dT rolled.
#: Melee and ranged skills are given by "Attacking"; Athletics (Block) and
#: Acrobatics (Dodge) by "Defending"; the rest are readings (see help page).
SKILL_CHARACTERISTIC = {
    "melee": "agility",
    "pistols": "perception",
    "rifles": "perception",
    "heavy_weapons": "perception",
    "bows": "perception",
    "throwing": "perception",
    "athletics": "strength",
    "acrobatics": "agility",
    "resolve": "willpower",
    "awareness": "perception",
    "stealth": "agility",
    "scrutiny": "perception",
}
SKILLS = tuple(SKILL_CHARACTERISTIC)
#: the hit locations' words
LOCATION_WORDS = {"torso": say("torso"), "head": say("head"), "arms": say("arms"), "legs": say("legs"),
                  "arm": say("arm"), "leg": say("leg")}
#: the status effects of the chapter's table (``STATUS_LIST``), as people read them: the rules' words, on the
#: badges, the card and the log (a name outside the table, which the sheet refuses, stays as written)
STATUS_WORDS = {"Grappled": say("Grappled"), "Pinned": say("Pinned"), "Bloodied": say("Bloodied"),
                "Unconscious": say("Unconscious"), "Bleeding": say("Bleeding"), "Disabled": say("Disabled"),
                "Dazed": say("Dazed"), "Suppressed": say("Suppressed"), "Blinded": say("Blinded"),
                "Stunned": say("Stunned"), "Slowed": say("Slowed"), "Suffocating": say("Suffocating"),
                "Attracted": say("Attracted"), "Disheartened": say("Disheartened"), "Frightened": say("Frightened"),
                "Dejected": say("Dejected"), "Enticed": say("Enticed"), "Terrified": say("Terrified"),
                "Blabbermouth": say("Blabbermouth"), "Enthralled": say("Enthralled"), "Fleeing": say("Fleeing"),
                "Scared to Death": say("Scared to Death"), "Surrendered": say("Surrendered"),
                "Staggered": say("Staggered")}


def status_words(name: str):
    """A status effect's name as people read it (the rules' words for the chapter's table)."""
    return STATUS_WORDS.get(name, name)
#: the feats an action needs, as people read them
FEAT_WORDS = {"Multi-Weapon Fighting (Melee)": say("Multi-Weapon Fighting (Melee)"),
              "Multi-Weapon Fighting (Pistol/Ranged)": say("Multi-Weapon Fighting (Pistol/Ranged)")}
#: the skills' names as people read them (the rules' words, #37)
SKILL_WORDS = {"melee": say("Melee"), "pistols": say("Pistols"), "rifles": say("Rifles"),
               "heavy_weapons": say("Heavy Weapons"), "bows": say("Bows"), "throwing": say("Throwing"),
               "athletics": say("Athletics"), "acrobatics": say("Acrobatics"), "resolve": say("Resolve"),
               "awareness": say("Awareness"), "stealth": say("Stealth"), "scrutiny": say("Scrutiny")}


def skill_words(name: str):
    """A skill's name as people read it: the rules' words for the document's skills, else the sheet's own."""
    return SKILL_WORDS.get(name, name.replace("_", " ").title())


def rank_words(name: str):
    """The label of a skill's rank in a test's breakdown ("Rifles rank")."""
    return say("{skill} rank", skill=skill_words(name))
RANGED_SKILLS = ("pistols", "rifles", "heavy_weapons", "bows", "throwing")


@dataclass(frozen=True)
class Action:
    """One combat action: its tick cost and what it does to the numbers."""

    key: str
    name: str
    category: str  # melee, ranged, attack_misc, defense, movement, misc, social
    ticks: int | None  # cost on the character's own turn; None: reaction only
    reaction_ticks: int | None = None  # cost as a reaction; None: not a reaction
    attack: int = 0  # modifier to this action's attack roll
    provokes: str | None = None  # "path": foes adjacent to any square left; "adjacent": melee foes
    mode: str | None = None  # "melee" or "ranged" for attacks
    fire_mode: str = "single"  # single, burst, auto (ranged attacks)
    stance: str | None = None  # defensive state until the start of the next turn
    move_multiple: float = 0  # squares moved, as a multiple of Speed
    varies: bool = False  # the document says the cost varies (GM)
    automated: bool = True  # resolve() handles it; else the GM adjudicates the outcome
    extra: dict = field(default_factory=dict)

    @property
    def is_attack(self) -> bool:
        return self.mode is not None


_A = Action
ACTION_LIST: tuple[Action, ...] = (
    # Melee Attack Actions
    _A("melee_strike", say("Melee Strike"), "melee", 2, mode="melee"),
    _A("precision_strike", say("Precision Strike"), "melee", 3, attack=1, mode="melee"),
    _A("off_hand_strike", say("Off-hand Strike"), "melee", 2, attack=-1, mode="melee"),
    _A("all_out_attack", say("All-Out Attack"), "melee", 3, attack=2, mode="melee", stance="all_out"),
    _A("reaction_strike", say("Reaction Strike"), "melee", None, reaction_ticks=1, mode="melee"),
    _A("knockout_blow", say("Knockout Blow"), "melee", 3, attack=-2, mode="melee", extra={"no_wounds": True, "resolve_chain": ("Dazed", "Staggered", "Unconscious")}),
    _A("pressure_point_strike", say("Pressure-point Strike"), "melee", 3, attack=-2, mode="melee", extra={"resolve_chain": ("Dazed", "Slowed")}),
    _A("charge", say("Charge"), "melee", 4, attack=1, mode="melee", move_multiple=2, extra={"min_move": 2}),
    _A("guarded_attack", say("Guarded Attack"), "melee", 3, attack=-2, mode="melee", stance="guarded"),
    _A("multi_strike", say("Multi-Strike"), "melee", 3, attack=-1, mode="melee", varies=True, extra={"secondary": -3, "feat": "Multi-Weapon Fighting (Melee)"}),
    _A("grapple", say("Grapple"), "melee", 3, mode="melee", extra={"grappling": True, "defenses": ("duck", "dodge")}),
    _A("join_grapple", say("Join a grapple"), "melee", 0, extra={"grappling": True}),
    _A("grapple_strike", say("Grapple Strike"), "melee", 3, mode="melee", extra={"requires_status": "Grappled", "grappling": True}),
    _A("pin", say("Pin"), "melee", 3, mode="melee", extra={"grappling": True, "requires_status": "Grappled", "defenses": ("grapple_defense",)}),
    _A("break_pin", say("Break Pin"), "melee", 4, mode="melee", extra={"grappling": True, "defenses": ("melee_or_acrobatics",), "free_defense": True, "test_only": True}),
    _A("choke_out", say("Choke Out"), "melee", 4, mode="melee", extra={"grappling": True, "requires_status": "Grappled", "defenses": ("athletics",), "free_defense": True}),
    _A("pummel", say("Pummel"), "melee", 4, attack=3, mode="melee", extra={"requires_target_status": "Pinned", "extra_hits_every": 2, "grappling": True}),
    _A("disarm", say("Disarm"), "melee", 3, attack=-1, mode="melee", extra={"grappling": True, "defenses": ("duck", "dodge", "athletics"), "take_margin": 3}),
    _A("trip", say("Trip"), "melee", 3, attack=-2, mode="melee", extra={"defenses": ("duck", "dodge", "athletics"), "trip": True}),
    # Ranged Attack Actions
    _A("straight_shot", say("Straight Shot"), "ranged", 2, mode="ranged"),
    _A("calculated_shot", say("Calculated Shot"), "ranged", 3, attack=1, mode="ranged"),
    _A("off_hand_shot", say("Off-hand Shot"), "ranged", 2, attack=-2, mode="ranged", extra={"ambidextrous_ignores": True}),
    _A("disabling_shot", say("Disabling Shot"), "ranged", 4, attack=-3, mode="ranged", extra={"resolve_chain": ("Disabled",)}),
    _A("called_shot", say("Called Shot"), "ranged", 4, attack=-3, mode="ranged", extra={"ap": 2, "damage": 3, "wounds": 1, "location": "head", "resolve_chain": ("Dazed", "Stunned")}),
    _A("distracting_shot", say("Distracting Shot"), "ranged", 3, attack=-2, mode="ranged", extra={"defenses": ("scrutiny",), "free_defense": True, "test_only": True, "distract_ticks": 2}),
    _A("burst_fire", say("Burst Fire"), "ranged", 3, attack=-1, mode="ranged", fire_mode="burst"),
    _A("hip_fire", say("Hip Fire"), "ranged", 4, attack=-2, mode="ranged", fire_mode="burst", move_multiple=2),
    _A("full_auto", say("Full-Auto"), "ranged", 5, attack=-2, mode="ranged", fire_mode="auto"),
    _A("multi_strike_ranged", say("Multi-Strike (Ranged)"), "ranged", 3, attack=-1, mode="ranged", varies=True, extra={"secondary": -3, "feat": "Multi-Weapon Fighting (Pistol/Ranged)"}),
    _A("spray_n_pray", say("Spray 'n Pray"), "ranged", 5, attack=-3, mode="ranged", fire_mode="auto", extra={"arc": 45, "half_range": True, "one_hit_each": True}),
    _A("overwatch", say("Overwatch"), "ranged", 4, stance="overwatch", extra={"overwatch_attack": -1}),
    _A("overwatch_attack", say("Overwatch attack"), "ranged", None, reaction_ticks=0, attack=-1, mode="ranged", extra={"needs_stance": "overwatch", "free": 1, "most": 2}),
    _A("suppressing_fire", say("Suppressing Fire"), "ranged", 4, extra={"applies_status": "Suppressed", "fire_mode": "auto"}),
    # Miscellaneous Attack Actions
    _A("cast_offensive_spell", say("Cast Offensive Spell"), "attack_misc", 3, varies=True, automated=False),
    _A("offensive_psychic_power", say("Use Offensive Psychic Power"), "attack_misc", 3, automated=False),
    # Defensive Actions (Parry from "Defending")
    _A("duck", say("Duck"), "defense", 0, reaction_ticks=0),
    _A("dodge", say("Dodge"), "defense", None, reaction_ticks=1),
    _A("block", say("Block"), "defense", None, reaction_ticks=1),
    _A("parry", say("Parry"), "defense", None, reaction_ticks=1),
    _A("grapple_defense", say("Grapple Defense"), "defense", None, reaction_ticks=1, extra={"grappling": True}),
    _A("covering_fire", say("Covering Fire"), "defense", 3, extra={"ally_defense": 1, "needs_full_auto": True}),
    _A("dive_for_cover", say("Dive for Cover"), "defense", 1, reaction_ticks=1, provokes="path", extra={"max_move": 3, "ends_prone": True}),
    _A("defend_ally", say("Defend Ally"), "defense", None, reaction_ticks=1, extra={"block": -2}),
    _A("hunker_down", say("Hunker Down"), "defense", 1, stance="hunkered"),
    _A("total_defense", say("Total Defense"), "defense", 3, stance="total_defense", extra={"defense": 2, "armour": 2}),
    # Movement Actions
    _A("move", say("Move"), "movement", 1, provokes="path", move_multiple=1),
    _A("quick_step", say("Quick Step"), "movement", 0, extra={"squares": 1, "once_per_turn": True}),
    _A("follow_step", say("Follow Step"), "movement", None, reaction_ticks=1, extra={"squares": 1}),
    _A("run", say("Run"), "movement", 3, provokes="path", move_multiple=4, stance="ran"),
    _A("sprint", say("Sprint"), "movement", 4, provokes="path", move_multiple=6, stance="sprint", extra={"turns": 1}),
    _A("enter_vehicle", say("Enter or leave a vehicle"), "movement", 2),
    _A("drop_prone", say("Drop Prone"), "movement", 1, reaction_ticks=1, provokes="adjacent"),
    _A("stand_up", say("Stand Up"), "movement", 1, provokes="adjacent"),
    _A("take_cover", say("Take Cover"), "movement", 0, reaction_ticks=1),
    _A("leave_cover", say("Stand up from cover"), "movement", 0, provokes="adjacent"),
    # Miscellaneous Actions
    _A("aim", say("Aim or Focus"), "misc", 1, reaction_ticks=1, extra={"next_roll": 1, "once_per_round": True}),
    _A("aid_ally", say("Aid Ally"), "misc", None, reaction_ticks=1, varies=True, extra={"reroll_per": 3}),
    _A("clear_jam", say("Clear Jam"), "misc", 2),
    _A("reload", say("Reload"), "misc", 3, varies=True),
    _A("delay", say("Delay"), "misc", 0),
    _A("draw_weapon", say("Draw Weapon or Item"), "misc", 1),
    _A("drop_item", say("Drop Weapon or Item"), "misc", 0),
    _A("initiate_swordpoint", say("Initiate Sword/Gun-point"), "misc", 3),
    _A("grapple_assist", say("Grapple Assist"), "misc", 2, reaction_ticks=2, automated=False, extra={"bonus_per": 3, "grappling": True}),
    _A("non_combat_skill", say("Use Non-Combat, Non-Verbal Skill"), "misc", 3, varies=True),
    _A("verbal_action", say("Verbal or Mental Only Non-Combat Action"), "misc", 1),
    _A("other_non_combat", say("Other Non-Combat Action"), "misc", 3, varies=True),
    _A("recover_from_fear", say("Recover from fear"), "misc", 2),
    # Social Combat Actions
    _A("bribe", say("Bribe"), "social", 2, automated=False),
    _A("charm", say("Charm"), "social", 2, automated=False, extra={"status_chain": ("Attracted", "Enticed", "Enthralled")}),
    _A("inspire", say("Inspire"), "social", 2, automated=False, extra={"ally_bonus": 1}),
    _A("intimidate", say("Intimidate"), "social", 2, automated=False, extra={"status_chain": ("Frightened", "Terrified", "Fleeing")}),
    _A("manipulate", say("Manipulate"), "social", 2, automated=False),
    _A("motivate", say("Motivate"), "social", 1, automated=False, extra={"ego_per": 3}),
    _A("psych_up", say("Psych Up"), "social", 1, automated=False, extra={"ego_per": 3}),
    _A("rally", say("Rally"), "social", 2, automated=False),
    _A("subvert", say("Subvert"), "social", 2, automated=False),
)
ACTIONS: dict[str, Action] = {a.key: a for a in ACTION_LIST}
#: the actions a turn most often takes (a move, the plain strike and shot, aiming, reloading, taking
#: cover): listed first, out of the seventy (``ActionOption.usual``)
USUAL_ACTIONS = frozenset({"move", "run", "melee_strike", "straight_shot", "aim", "reload", "take_cover"})

#: "Grappled": "May only take actions specific to grappling as denoted" (the
#: actions marked "(Grapple)" and Grapple itself); defending stays possible, at -3
#: against foes outside the grapple, and so do free actions that are no action
#: at all (speaking, dropping an item, delaying).
GRAPPLING_ACTIONS = frozenset(a.key for a in ACTION_LIST if a.extra.get("grappling"))
WHILE_GRAPPLED = GRAPPLING_ACTIONS | {"duck", "dodge", "block", "parry", "drop_item", "verbal_action", "delay"}
#: "Pinned": "May take no actions except to Break Pinning and Grapple Defense"
WHILE_PINNED = frozenset({"break_pin", "grapple_defense", "delay"})

#: the fire mode of each rate of fire slot ("Rate of Fire (RoF)")
FIRE_MODE_SLOT = {"single": 0, "burst": 1, "auto": 2}

#: defensive rolls ("Defending"): characteristic pools, flat skill, free or a reaction
DEFENSES = {
    "duck": {"pools": ("agility", "perception"), "skill": None, "reroll": "intelligence", "ticks": 0},
    "dodge": {"pools": ("agility",), "skill": "acrobatics", "reroll": None, "ticks": 1},
    "block": {"pools": ("strength",), "skill": "athletics", "reroll": None, "ticks": 1},
    "parry": {"pools": ("agility",), "skill": "melee", "reroll": None, "ticks": 1, "melee_only": True},
}


@dataclass(frozen=True)
class StatusEffect:
    """A status effect and the numbers it changes ("Status Effects")."""

    name: str
    kind: str  # physical, social (technological effects are not listed in the chapter)
    level: int
    all_tests: int = 0
    attack: int = 0  # physical attack rolls
    melee_attack: int = 0
    ranged_attack: int = 0
    defense: int = 0  # physical defensive rolls
    social_defense: int = 0
    willpower_tests: int = 0  # Willpower tests (Resolve), in place of all_tests
    ticks_lost: int = 0  # at the start of each round while it lasts
    rounds: int | None = None  # lasts this many rounds, then becomes `then`
    then: str | None = None
    speed: int = 0
    upgrades_to: str | None = None
    steps_down_to: str | None = None  # a level 2 effect at the end of the scene
    damage_per_round: int = 0
    note: str = ""


_S = StatusEffect
STATUS_LIST: tuple[StatusEffect, ...] = (
    _S("Bleeding", "physical", 1, damage_per_round=1, note="first aid stops it"),
    _S("Disabled", "physical", 1, note="-1 to tests that use the item or area (GM)"),
    _S("Dazed", "physical", 1, all_tests=-1, ticks_lost=1, rounds=2, then=None),
    _S("Grappled", "physical", 1, note="-3 defense vs non-grappled foes, +1 attack vs grappled foes; grappling actions only"),
    _S("Suppressed", "physical", 1, attack=-2, defense=-2, note="from Suppressing Fire"),
    _S("Blinded", "physical", 2, melee_attack=-4, ranged_attack=-6, defense=-2, steps_down_to="Disabled"),
    _S("Bloodied", "physical", 2, attack=-1, defense=1, steps_down_to=None),
    _S("Pinned", "physical", 2, note="only Break Pin and Grapple Defense", steps_down_to="Grappled"),
    _S("Stunned", "physical", 2, all_tests=-2, ticks_lost=2, rounds=2, then="Dazed", steps_down_to="Dazed"),
    _S("Slowed", "physical", 2, speed=-1, defense=-1, steps_down_to="Disabled"),
    _S("Suffocating", "physical", 2, note="Resolve each round, difficulty 2 rising by 1", steps_down_to=None),
    _S("Unconscious", "physical", 3, note="no actions"),
    _S("Attracted", "social", 1, upgrades_to="Enticed", note="-2 social defense vs the source, +1 vs others"),
    _S("Disheartened", "social", 1, defense=-1, social_defense=-1),
    _S("Frightened", "social", 1, attack=-1, social_defense=-1, upgrades_to="Terrified"),
    _S("Dejected", "social", 2, all_tests=-1, willpower_tests=-2, steps_down_to="Disheartened", note="+2 Ego damage per failed social defense"),
    _S("Enticed", "social", 2, upgrades_to="Enthralled", steps_down_to="Attracted", note="-3 social defense vs the source, +1 vs others"),
    _S("Terrified", "social", 2, attack=-3, social_defense=-2, upgrades_to="Fleeing", steps_down_to="Frightened"),
    _S("Blabbermouth", "social", 3),
    _S("Enthralled", "social", 3, note="fails social defense vs the source"),
    _S("Fleeing", "social", 3, note="flees; Scared to Death if it cannot"),
    _S("Scared to Death", "social", 3, social_defense=-3),
    _S("Surrendered", "social", 3),
)
STATUS_EFFECTS: dict[str, StatusEffect] = {s.name: s for s in STATUS_LIST}

#: a name the chapter uses without defining it -> the effect used for it (reading)
STATUS_ALIASES = {"Staggered": "Stunned"}
