"""What every screen shows on a token (*3d6 Combat*, "Injury", "Defending", "Maneuvers"): HP and FP,
shock, the conditions injury leaves (stunned, prone, major wound, reeling, unconscious...), crippled
locations, and the maneuver that changes the token's defenses until its next turn.
"""

from __future__ import annotations

from ..text import say
from .sheet import current_hp, int_of, is_reeling, max_hp

#: conditions that are wounds rather than passing states
WOUND_CONDITIONS = ("major wound", "mortally wounded", "dead", "destroyed")
#: shorter labels for a token
SHORT = {"dropped held items": "dropped items", "blinded (one eye)": "blind (one eye)",
         "blinded (both eyes)": "blind"}
#: the maneuvers whose defense limits (or bonus) last until the token's next turn
DEFENSE_MANEUVERS = {"all_out_attack": say("All-Out Attack: no defense"),
                     "all_out_attack_ranged": say("All-Out Attack: no defense"),
                     "all_out_defense": say("All-Out Defense"), "committed_attack": say("Committed Attack: defense -2"),
                     "defensive_attack": say("Defensive Attack"), "do_nothing": say("Do Nothing: no defense")}
#: the conditions' words on a token (a condition the sheet names otherwise is shown as written there)
CONDITION_WORDS = {"dead": say("dead"), "destroyed": say("destroyed"), "mortally wounded": say("mortally wounded"),
                   "unconscious": say("unconscious"), "stunned": say("stunned"), "prone": say("prone"),
                   "major wound": say("major wound"), "reeling": say("reeling"),
                   "stunned (surprise)": say("stunned (surprise)"), "below 0 HP": say("below 0 HP"),
                   "dropped items": say("dropped items"), "blind (one eye)": say("blind (one eye)"),
                   "blind": say("blind"), "knocked down": say("knocked down")}
#: All-Out Defense's variants' words
VARIANT_WORDS = {"enhanced dodge": say("enhanced dodge"), "enhanced parry": say("enhanced parry"),
                 "enhanced block": say("enhanced block"), "double": say("double"),
                 # the attacking maneuvers' options
                 "determined": say("determined"), "long": say("long"), "strong": say("strong"), "feint": say("feint"),
                 "suppression fire": say("suppression fire")}
#: the hit locations' words (a crippled one)
LOCATION_WORDS = {"arm": say("arm"), "left arm": say("left arm"), "right arm": say("right arm"), "leg": say("leg"),
                  "left leg": say("left leg"), "right leg": say("right leg"), "hand": say("hand"),
                  "left hand": say("left hand"), "right hand": say("right hand"), "foot": say("foot"),
                  "left foot": say("left foot"), "right foot": say("right foot"), "eye": say("eye"),
                  "left eye": say("left eye"), "right eye": say("right eye"), "torso": say("torso"),
                  "skull": say("skull"), "face": say("face"), "neck": say("neck"), "vitals": say("vitals"),
                  "groin": say("groin"), "chinks torso": say("armour chinks (torso)"), "armour gap": say("armour gap"),
                  "weapon": say("weapon")}
#: the hit locations' names as a choice or a modifier names them (capitalized, as the "Hit Locations" table)
LOCATION_NAMES = {"eye": say("Eye"), "skull": say("Skull"), "face": say("Face"), "right_leg": say("Right leg"),
                  "right_arm": say("Right arm"), "torso": say("Torso"), "left_arm": say("Left arm"),
                  "left_leg": say("Left leg"), "right_hand": say("Right hand"), "left_hand": say("Left hand"),
                  "right_foot": say("Right foot"), "left_foot": say("Left foot"), "neck": say("Neck"),
                  "vitals": say("Vitals"), "groin": say("Groin"), "chinks_torso": say("Armour chinks (torso)"),
                  "armour_gap": say("Armour gap"), "weapon": say("Weapon")}
#: the maneuvers' names (GURPS Lite's terms)
MANEUVER_WORDS = {
                  "attack": say("Attack"),
                  "aim": say("Aim"),
                  "all_out_attack": say("All-Out Attack (melee)"),
                  "all_out_attack_ranged": say("All-Out Attack (ranged)"),
                  "all_out_defense": say("All-Out Defense"),
                  "committed_attack": say("Committed Attack (melee)"),
                  "defensive_attack": say("Defensive Attack (melee)"),
                  "evaluate": say("Evaluate"),
                  "feint": say("Feint"),
                  "move_and_attack": say("Move and Attack"),
                  "move": say("Move"),
                  "concentrate": say("Concentrate"),
                  "ready": say("Ready"),
                  "wait": say("Wait"),
                  "do_nothing": say("Do Nothing")}


def maneuver_name(key: str) -> str:
    """A maneuver's name in the reader's words (an unknown key as it is)."""
    return MANEUVER_WORDS.get(key, key)


def location_name(key: str) -> str:
    """A hit location's name as the "Hit Locations" table writes it, in the reader's words."""
    return LOCATION_NAMES.get(key, key)


#: conditions first in this order, the rest after in the sheet's order
ORDER = ("dead", "destroyed", "mortally wounded", "unconscious", "stunned", "prone", "major wound", "reeling")


def badges(sheet: dict, state: dict | None = None) -> list[dict]:
    """``{"label", "kind"}`` for a token: HP (a wound once any is lost), FP when spent, shock, the
    sheet's conditions and crippled locations, below 0 HP or reeling (HP/3: Move and Dodge halved),
    and from the token's fight state (``Combatant.state``) a surprise stun and the maneuver that
    limits its defenses."""
    st = state if isinstance(state, dict) and "combatants" not in state else {}
    hp, cur = max_hp(sheet), current_hp(sheet)
    out = [{"label": say("HP {current}/{most}", current=cur, most=hp), "kind": "wound" if cur < hp else "resource"}]
    fp = int_of(sheet.get("FP") or sheet.get("HT"), 10)
    fp_cur = int_of(sheet.get("fp_current", fp), fp)
    if fp_cur < fp:
        out.append({"label": say("FP {current}/{most}", current=fp_cur, most=fp), "kind": "resource"})
    shock = int_of(sheet.get("shock"))
    if shock > 0:
        out.append({"label": say("shock -{shock}", shock=shock), "kind": "resource"})
    conditions = [str(c) for c in sheet.get("conditions") or [] if c]
    if st.get("stunned") and "stunned" not in conditions:
        conditions.append("stunned (surprise)")
    if cur < 0:
        conditions.append("below 0 HP")
    elif is_reeling(sheet):
        conditions.append("reeling")
    ranked = sorted(dict.fromkeys(conditions), key=lambda c: ORDER.index(c) if c in ORDER else len(ORDER))
    for c in ranked:
        kind = "wound" if c in WOUND_CONDITIONS or c == "below 0 HP" else "condition"
        short = SHORT.get(c, c)
        out.append({"label": CONDITION_WORDS.get(short, short), "kind": kind})
    for loc in sheet.get("crippled") or []:
        where = str(loc).replace("_", " ")
        out.append({"label": say("crippled {location}", location=LOCATION_WORDS.get(where, where)), "kind": "wound"})
    maneuver = st.get("maneuver")
    if maneuver in DEFENSE_MANEUVERS and not (maneuver == "do_nothing" and st.get("stunned_turn")):
        label = DEFENSE_MANEUVERS[maneuver]
        if maneuver == "all_out_defense" and st.get("variant"):
            variant = str(st["variant"]).replace("_", " ")
            label = say("All-Out Defense ({variant})", variant=VARIANT_WORDS.get(variant, variant))
        out.append({"label": label, "kind": "condition"})
    return out
