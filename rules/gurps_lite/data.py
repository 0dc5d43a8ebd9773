"""Tables and constants of *3d6 Combat*: section names, wounding multipliers, the range and
rapid-fire tables, hit locations, basic damage, encumbrance, the maneuver table, the readings
chosen where the document is silent, and the per-game settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

S_CORE = "3d6 core facts"
S_TURN = "Turn Order"
S_ATTACK = "Attacking"
S_LOC = "Hit Locations"
S_RANGED = "Ranged Attacks"
S_AOE = "Area of Effects"
S_DEFEND = "Defending"
S_MANEUVER = "Maneuvers"
S_DAMAGE = "Damage"
S_INJURY = "Injury"
S_READING = "reading (document silent)"
S_GM = "GM"


#: Damage: wounding multiplier per damage type ("tbb", tight-beam burning,
#: is named by the hit-location notes; it wounds like burning).
WOUNDING = {
    "cr": 1.0,
    "cut": 1.5,
    "imp": 2.0,
    "pi-": 0.5,
    "pi": 1.0,
    "pi+": 1.5,
    "pi++": 2.0,
    "burn": 1.0,
    "tox": 1.0,
    "cor": 1.0,
    "fat": 1.0,
    "tbb": 1.0,
}
PIERCING = ("pi-", "pi", "pi+", "pi++")
#: Ranged Attacks: (upper bound of range + speed in yards, penalty, band)
RANGE_TABLE = (
    (5, 0, "close"),
    (20, -3, "short"),
    (100, -7, "medium"),
    (500, -11, "long"),
    (math.inf, -15, "far"),
)


#: Ranged Attacks: Rapid Fire (lowest shots, bonus); past 99, +1 per doubling.
RAPID_FIRE_TABLE = ((2, 0), (5, 1), (9, 2), (13, 3), (17, 4), (25, 5), (50, 6))


#: Hit Locations, random column (the document's column is garbled; this is
#: the published 3d6 table of the 3d6 core facts).
RANDOM_LOCATION = {
    3: "skull", 4: "skull", 5: "face", 6: "right_leg", 7: "right_leg", 8: "right_arm",
    9: "torso", 10: "torso", 11: "groin", 12: "left_arm", 13: "left_leg", 14: "left_leg",
    15: "hand", 16: "foot", 17: "neck", 18: "neck",
}


@dataclass(frozen=True)
class Location:
    key: str
    name: str
    to_hit: int  # from the front
    to_hit_back: int | None = None
    notes: tuple[int, ...] = ()  # the document's note numbers
    cripple: float | None = None  # fraction of HP; injury above it cripples
    kind: str = "body"  # body, limb, extremity, eye, special


LOCATIONS: dict[str, Location] = {
    loc.key: loc
    for loc in (
        Location("eye", "Eye", -9, None, (1, 2), 0.1, "eye"),
        Location("skull", "Skull", -7, -5, (1, 3)),
        Location("face", "Face", -5, -7, (1, 4)),
        Location("right_leg", "Right leg", -2, None, (5,), 0.5, "limb"),
        Location("right_arm", "Right arm", -2, None, (5, 6), 0.5, "limb"),
        Location("torso", "Torso", 0, None, (11,)),
        Location("left_arm", "Left arm", -2, None, (5, 6), 0.5, "limb"),
        Location("left_leg", "Left leg", -2, None, (5,), 0.5, "limb"),
        Location("right_hand", "Right hand", -4, None, (6, 5, 8), 1 / 3, "extremity"),
        Location("left_hand", "Left hand", -4, None, (6, 5, 8), 1 / 3, "extremity"),
        Location("right_foot", "Right foot", -4, None, (5, 8), 1 / 3, "extremity"),
        Location("left_foot", "Left foot", -4, None, (5, 8), 1 / 3, "extremity"),
        Location("neck", "Neck", -5, None, (1, 9)),
        Location("vitals", "Vitals", -3, None, (1, 10)),
        Location("groin", "Groin", -3, None, (1, 7)),
        Location("chinks_torso", "Armour chinks (torso)", -10, None, (12,), None, "special"),
        Location("armour_gap", "Armour gap", -8, None, (12,), None, "special"),
        Location("weapon", "Weapon", -4, None, (13,), None, "special"),
    )
}


#: Hit Locations, "Weapon": penalty by the weapon's reach (C, 1, 2+)
WEAPON_LOCATION_PENALTY = {"C": -5, 1: -4, 2: -3}


#: Basic damage by ST (thrust, swing), the published table; the document
#: gives weapon damage as dice but does not print this table.
BASIC_DAMAGE = {
    1: ("1d-6", "1d-5"), 2: ("1d-6", "1d-5"), 3: ("1d-5", "1d-4"), 4: ("1d-5", "1d-4"),
    5: ("1d-4", "1d-3"), 6: ("1d-4", "1d-3"), 7: ("1d-3", "1d-2"), 8: ("1d-3", "1d-2"),
    9: ("1d-2", "1d-1"), 10: ("1d-2", "1d"), 11: ("1d-1", "1d+1"), 12: ("1d-1", "1d+2"),
    13: ("1d", "2d-1"), 14: ("1d", "2d"), 15: ("1d+1", "2d+1"), 16: ("1d+1", "2d+2"),
    17: ("1d+2", "3d-1"), 18: ("1d+2", "3d"), 19: ("2d-1", "3d+1"), 20: ("2d-1", "3d+2"),
}


#: Move multiplier by encumbrance level 0-4 (published; the document only
#: says Dodge loses the level).
ENCUMBRANCE_MOVE = (1.0, 0.8, 0.6, 0.4, 0.2)
ENCUMBRANCE_NAMES = ("None", "Light", "Medium", "Heavy", "Extra-heavy")
UNARMED_SKILLS = ("Brawling", "Boxing", "Judo", "Karate")
RETREAT_PLUS3_SKILLS = ("Boxing", "Judo", "Karate")


@dataclass(frozen=True)
class Maneuver:
    key: str
    name: str
    defense: str  # the table's Defense column, as data below
    movement: str  # step | step2 | half | move | none
    attack: str = ""  # "" (no attack), "any", "melee", "ranged"
    variants: tuple[str, ...] = ()
    defense_mod: int = 0
    no_parry_with_attack_weapon: bool = False
    no_retreat: bool = False
    no_defense: bool = False
    notes: str = ""


MANEUVERS: dict[str, Maneuver] = {
    m.key: m
    for m in (
        Maneuver("attack", "Attack", "Any", "step", "any"),
        Maneuver("aim", "Aim", "Any (defending spoils the aim)", "step", "",
                 notes="Acc of a ranged weapon to the next attack; +1 for a second second, +2 for more"),
        Maneuver("all_out_attack", "All-Out Attack (melee)", "None", "half", "melee",
                 ("determined", "double", "long", "strong", "feint"), no_defense=True),
        Maneuver("all_out_attack_ranged", "All-Out Attack (ranged)", "None", "half", "ranged",
                 ("determined", "suppression_fire"), no_defense=True),
        Maneuver("all_out_defense", "All-Out Defense", "Any", "step", "",
                 ("enhanced_dodge", "enhanced_parry", "enhanced_block", "double")),
        Maneuver("committed_attack", "Committed Attack (melee)",
                 "Any at -2; no parry with the attacking weapon; no retreat", "step2", "melee",
                 ("determined", "strong"), defense_mod=-2, no_parry_with_attack_weapon=True, no_retreat=True),
        Maneuver("defensive_attack", "Defensive Attack (melee)",
                 "Any at +1 (not parries with unbalanced weapons)", "step", "melee", defense_mod=1),
        Maneuver("evaluate", "Evaluate", "Any", "step", "", notes="+1 to +3 against the evaluated enemy"),
        Maneuver("feint", "Feint", "Any", "step", "melee",
                 notes="quick contest of weapon skills; the margin comes off the target's defense"),
        Maneuver("move_and_attack", "Move and Attack", "Any; no parry with the attacking limb", "move", "any",
                 no_parry_with_attack_weapon=True),
        Maneuver("move", "Move", "Any", "move"),
        Maneuver("concentrate", "Concentrate", "Any (Will-3 to keep concentrating)", "step"),
        Maneuver("ready", "Ready", "Any", "step"),
        Maneuver("wait", "Wait", "Depends on the action taken", "none"),
        Maneuver("do_nothing", "Do Nothing", "None", "none", no_defense=True),
    )
}


READINGS: tuple[tuple[str, str, str | None], ...] = (
    ("Random hit location", "The document's random column is garbled; the published 3d6 table is used "
     "(3-4 skull, 5 face, 6-7 right leg, 8 right arm, 9-10 torso, 11 groin, 12 left arm, 13-14 left leg, "
     "15 hand, 16 foot, 17-18 neck); hand and foot side by 1d (1-3 right, 4-6 left).", None),
    ("Plain Attack maneuver", "The maneuver table lists 'Committed Attack (Melee) | Any | Step' twice; the "
     "first row is read as the plain Attack maneuver (any defense, a step).", None),
    ("Critical hits", "A critical success on the attack allows no active defense; the critical hit and "
     "critical miss tables are not in the document and are left to the GM.", "critical_hit_no_defense"),
    ("Combat Reflexes", "The document only says Combat Reflexes turns Total into Partial Surprise. The "
     "published +1 to active defenses is off by default.", "combat_reflexes_defense_bonus"),
    ("Side leader", "A side whose tokens have none marked leader is leaderless (-2); its best roller "
     "rolls. Primal and thuggish sides use the better of Tactics and Survival / Streetwise.", None),
    ("Skill defaults", "A token without the named skill rolls the attribute (document: 'an Attribute if "
     "none are available'): DX for combat skills, IQ for Tactics and Streetwise, Per for Survival.", None),
    ("Contests", "Quick contests: a success beats a failure, else the larger margin wins; ties in turn "
     "order go to the higher effective skill, then the side name.", None),
    ("Turn order within a side", "Tokens of a side act by Basic Speed, then DX, then name.", None),
    ("Moves", "Move = Basic Move x (1, .8, .6, .4, .2) by encumbrance, round down, at least 1; a step is "
     "1 yard or Move/10; half move rounds up; reeling halves Move and Dodge, rounding up.", None),
    ("Range", "Range plus speed is rounded up to whole yards before reading the table.", None),
    ("Close quarters", "Weapon Bulk applies when the target is within this many yards.", "close_quarters_yards"),
    ("Half damage", "At or beyond 1/2D the damage roll is halved (round down); no attack beyond Max "
     "(published; the document names 1/2D only for shotguns).", None),
    ("Minimum damage", "Crushing 'has no minimum damage': other types do at least 1 damage.", None),
    ("Rapid Strike shots", "A ranged Rapid Strike splits the RoF among its attacks: one shot each, or the "
     "shots option as the total (split evenly, the earlier attacks taking the odd shots) or as a list per "
     "attack; never more than the RoF in all. The attacks of one request share its target.", None),
    ("Supported parry", "The free hand of a Supported parry can neither parry unarmed nor support another "
     "parry for the rest of the round (the document: the limbs used cannot parry again this round).", None),
    ("Consecutive parries", "-4 per parry after the first (cumulative), -2 with a fencing weapon or "
     "Trained by a Master / Weapon Master, -1 with both.", None),
    ("Rapid fire and defense", "A successful defense against a rapid-fire attack stops one hit plus one per "
     "point of margin (published).", "defense_stops_extra_hits"),
    ("Feint", "The margin of a Feint comes off the target's Dodge only, as the document says; the "
     "published rule takes it off every defense.", "feint_affects"),
    ("Limb wounding", "pi+, pi++ and imp (and tbb) are x1 on limbs and extremities; the document names "
     "pi+, imp and tbb.", None),
    ("Cripple thresholds", "A limb is crippled by injury over HP/2, an extremity over HP/3, an eye over "
     "HP/10; injury beyond what cripples is lost.", None),
    ("Torso to vitals", "Any torso hit by imp, pi, cr or tbb rolls 1d; on a 1 it hits the vitals.",
     "torso_vitals_roll"),
    ("Vitals DR", "Vitals are protected by the torso's DR unless the sheet gives vitals DR.", None),
    ("Armour chinks", "'-10/-8': chinks in torso armour at -10 halve DR; a large armour gap at -8 has DR 0; "
     "both hit the torso.", None),
    ("Groin", "Double shock from cr to a male token is capped at 8; the -5 knockdown applies to every "
     "groin knockdown roll.", None),
    ("Face", "cor is x1.5; blinds one eye on a major wound, both on injury over full HP.", None),
    ("Shock", "Shock is the injury of the turn, capped at 4; fatigue damage causes no shock. It penalises the "
     "victim's next turn and clears when that turn ends; shock from injury taken during the victim's own turn "
     "is kept for its next turn.", None),
    ("Death checks", "A HT roll each time HP reaches -1, -2, -3, -4 x HP; dead at -5 x HP, destroyed at "
     "-10 x HP. Collapse rolls start below 0 HP and are not needed under Do Nothing.", None),
    ("Disarm tie", "A tie in the disarm contest counts as the opponent winning by 0 (weapon unreadied); "
     "a critical failure on your contest roll disarms you.", None),
    ("Stunned", "A stunned token may only Do Nothing and defends at -4 (published); that forced Do Nothing "
     "keeps its defenses, where a chosen Do Nothing has none (the maneuver table).", None),
    ("Stun recovery", "Surprise stun: after the 1d seconds of Total Surprise (at once for Partial Surprise), an "
     "IQ roll each turn, +1 for each earlier roll; the stun of a knockdown: a HT roll each turn (published). "
     "The roll comes at the end of the stunned token's turn, recovering for its next turn (published), or at "
     "its start, acting at once on a success.", "stun_recovery_roll"),
    ("Surprised at the start", "A token the GM ticks 'surprised' when the fight starts is Totally Surprised ('catch "
     "them off-guard when they are not expecting danger'): its side acts after the attackers and it is mentally "
     "stunned for 1d seconds, then rolls IQ each turn, 1 easier each time; Combat Reflexes makes it Partial (no 1d "
     "seconds). The setting reads the tick as Partial Surprise ('wary defenders') instead.", "surprise_kind"),
    ("End of a fight", "The document says nothing of what happens when a fight ends: HP, FP, wounds and conditions "
     "stay. Shock clears, since it only penalises the victim's next turn.", None),
    ("Deceptive Attack", "The document names it only under Riposte ('Doesn't stack with Deceptive Attack'); the "
     "published rule is used: -2 to hit for each -1 to the target's defense against the attack, never below "
     "skill 10; with a riposte penalty on the same defender, the larger of the two counts.", None),
    ("Reloading", "The document gives no reload times: reloading a weapon with Shots is one Ready maneuver ('do "
     "anything not covered by other maneuvers'), which fills it; the shots left are kept on the sheet.", None),
    ("Several targets", "A Rapid Strike's attacks go to the targets in the order picked, as evenly as they go; "
     "Spraying Fire splits the shots fired, less those wasted sweeping (a gap is the squares between two "
     "targets), as evenly as they go, the earlier targets taking the odd shots. The defense picked is the first "
     "target's; the others defend as best they can.", None),
    ("Suppression Fire from the attack card", "Picked on the attack card at a token, the area is a square as wide "
     "as the rule says (2 yards, 4 at RoF 10+) on that token's square; the token, caught in it when the fire "
     "starts, is attacked at once. Laying the area spends the RoF; the attacks on whoever enters fire no more.",
     None),
    ("Supported parry and a shield", "A Supported parry needs a free hand: a token with a shield has none.", None),
    ("Laid area attacks", "A sphere laid as a template is 'aimed at the ground' (+4); with no target to dodge, "
     "each token under it after any scatter dives, prone either way, out of it on a success.", None),
    ("Collapse roll", "The HT roll below 0 HP is made when the token chooses its maneuver at the start of its "
     "turn, so Do Nothing needs none; a failure ends the turn unconscious.", None),
    ("Turn order for the fight", "The quick contest is rolled once, when the fight begins; the order holds "
     "every round. A token that joins later acts last.", None),
    ("Defenses per round", "Dodges, parries, the block and the limbs of a Cross or Supported parry are counted "
     "per round (the document's 'in round') and reset when a new round begins.", None),
    ("Aim and Evaluate", "Their bonus lasts to the token's next turn: choosing another maneuver, or defending "
     "while aiming, loses it. Evaluate builds +1 a consecutive turn on the same target, up to +3; Aim adds +1, "
     "then +2, for consecutive turns on the same target.", None),
    ("Feints and ripostes", "A feint's penalty lasts to the end of the feinter's next turn; a riposte's to the "
     "end of the riposter's next turn.", None),
    ("Area attacks", "Distance from the centre is counted in squares (Chebyshev); damage is divided by "
     "that distance (at least 1). Scatter direction is 1d8 (1 = north, clockwise).", None),
    ("Cover", "The document has no cover rules; cover fraction maps to a to-hit penalty: under 25% none, "
     "under 75% -2, else -4 ('total' cover when every line is blocked).", "cover_penalties"),
    ("Physician care", "'roll HP and Physician' is read as HT and Physician, keeping the better result.", None),
    ("Surgery", "-2 below -3 x HP, -4 (not -6) below -4 x HP, -2 per earlier attempt.", None),
    ("High-speed missiles", "A weapon of kind 'ranged' counts as a high-speed missile (no Block) unless its "
     "sheet entry says bullet: false (bows, slings); thrown weapons can be blocked.", None),
    ("Diagonals", "Moving diagonally costs 1 then 2 yards alternately.", None),
    ("Moving before a maneuver", "Every movement belongs to a maneuver (a step, two steps, half Move, Move) and the "
     "document never has a move choose one: a move before the turn's maneuver is chosen is refused ('choose a "
     "maneuver first'); the movement shown then is the most a maneuver open to the token allows.", None),
    ("Attacking before a maneuver", "An attack is made under an attacking maneuver: one made without a chosen "
     "maneuver is a plain Attack (or the maneuver its options name), and the fight books it as the turn's "
     "maneuver, with its movement and defense limits; the maneuver's attack is made once a turn.", None),
    ("All-Out Attack movement", "'1/2 move forward': the half Move is enforced, the direction is the GM's.", None),
    ("Suppression Fire area", "The shooter names the squares it keeps under fire; whoever enters one of them "
     "before the shooter's next turn provokes its attack at 8 + the rapid fire bonus of its RoF.", None),
    ("Outcome lines", "The odds list critical miss, miss, defended, and hits by the injury of the whole attack: no "
     "injury (DR), 1-2, 3-5, 6+ HP (FP for fatigue damage), or a major wound (one hit over HP/2 or crippling: a "
     "knockdown roll), for every attack a request makes.", None),
    ("Major wound", "A major wound stays on the token as a condition until the GM clears it.", None),
    ("Thrust and swing", "Weapon damage 'thr' / 'sw' uses the published basic damage table (ST 1-20).", None),
    ("Flanking", "The document keeps no facing, so no defender ever has to turn. With the setting on, a defender "
     "attacked by a foe on the far side of it from another foe of the attacker's side beside it (the angle at the "
     "defender between the two 135 degrees or more on squares, opposite hexes on hexes) defends at -2, as against "
     "an attack from the side (published). Off by default.", "flanking"),
)


def default_settings() -> dict:
    """Per-game settings (GM-changeable readings) and their defaults."""
    return {
        "critical_hit_no_defense": True,
        "combat_reflexes_defense_bonus": False,
        "close_quarters_yards": 1,
        "defense_stops_extra_hits": True,
        "feint_affects": "dodge",  # or "all"
        "torso_vitals_roll": True,
        "shield_side": "left",
        "cover_penalties": {"none": 0, "partial": -2, "heavy": -4},
        "stun_recovery_roll": "end_of_turn",  # or "start_of_turn"
        "surprise_kind": "total",  # or "partial": what the table's "surprised" tick means
        "flanking": False,  # a defender flanked defends at -2 (READINGS, "Flanking")
    }


class Settings(dict):
    """The per-game settings as :func:`settings_of` made them (read, never changed): given again, they are themselves
    (an attack's odds read them a dozen times over, #68)."""


def settings_of(settings: dict | None) -> dict:
    """The per-game settings: the defaults with the known keys of ``settings`` over them."""
    if type(settings) is Settings:
        return settings
    out = Settings(default_settings())
    if settings:
        out.update({k: v for k, v in settings.items() if k in out})
    return out
