"""Phase/TN's and Atomic Tomorrow's rarer words (#37): the refusals of every module (settings, sheet checks,
weapons, targets, ranges, actions), the lines and odds they write, are rules' words (a ``Say``), translated in
German and Spanish from the rules catalog: no English left in them, nested words included."""

from __future__ import annotations

import re

import pytest

import rules
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, SheetError
from rules.text import Say
from webapp.game.core import speech

from rules import phase_tn as pt
from rules.atomic_tomorrow import (attack as at_attack, checks as at_checks, cover as at_cover, data as at_data,
                                   defense as at_defense, economy as at_economy, health as at_health,
                                   movement as at_movement, odds as at_odds, ranges as at_ranges, sheet as at_sheet,
                                   turns as at_turns)
from rules.phase_tn import (attack as pt_attack, checks as pt_checks, cover as pt_cover, data as pt_data,
                            odds as pt_odds, sheet as pt_sheet, targeting as pt_targeting)
from rule_refusals import refusal

PT = rules.get("phase_tn")
AT = rules.get("atomic_tomorrow")




def pt_combatant(cid, name, **state):
    return Combatant(cid, name, PT.default_sheet(), (0, 0), "pc", state=state)


def at_combatant(cid, name, sheet=None, **state):
    return Combatant(cid, name, sheet or AT.default_sheet(), "west", "pc", state=state)


def pt_request(**options):
    return AttackRequest(pt_combatant("a", "Ann"), pt_combatant("b", "Bob"), weapon=None, distance=3,
                         options=options)


def at_request(weapon=None, **options):
    return AttackRequest(at_combatant("a", "Ann"), at_combatant("b", "Bob"), weapon=weapon, distance=0,
                         options=options)


def declaring(state=None):
    """A Phase/TN combat of Ann and Bob in which Ann declares now."""
    combat = pt.new_combat(["a", "b"], [])
    combat["order"], combat["initiative"] = ["a", "b"], {"a": 10, "b": 12}
    return {**combat, **(state or {})}


BAD_SHEET = {**AT.default_sheet(), "brawn": 0}

#: one refusal at least of every module, with the words' German and Spanish in full where they are fixed
REFUSALS = {
    # Phase/TN
    "pt data: a setting": (lambda: pt_data.resolve_settings({"drift_first_arm": "up"}),
                           "die Einstellung drift_first_arm muss 'right' oder 'left' sein",
                           "el ajuste drift_first_arm debe ser 'right' o 'left'"),
    "pt odds: the table": (lambda: pt_odds.odds(pt_request(targeted=True), {"hit_location_table": [[1, 1, "head"]]}),
                           "die Trefferzonentabelle hat keinen Eintrag für 2",
                           "la tabla de localización no tiene entrada para 2"),
    "pt targeting: a location": (lambda: pt_targeting.called_shot_drift("tail", 0),
                                 "unbekannte Trefferzone 'tail'; die Trefferzonen sind head, chest, abdomen, left arm, "
                                 "right arm, left leg, right leg", None),
    "pt checks: an attribute": (lambda: pt_checks.attribute_roll({}, "luck", 8, ScriptedDice([5])),
                                "unbekanntes Attribut 'luck'", "atributo desconocido 'luck'"),
    "pt attack: a fire mode": (lambda: pt_attack.attack_setup(pt_request(mode="burst")),
                               "Sidearm ist keine automatische Waffe", "Sidearm no es un arma automática"),
    "pt attack: the TN": (lambda: pt_attack.attack_setup(pt_request(tn=99)),
                          "der MW ist eine ganze Zahl von 1 bis 40, nicht 99 (die SL setzt ihn: Fernangriffe)",
                          "el NO es un número entero de 1 a 40, no 99 (lo fija el DJ: Ataques a distancia)"),
    "pt attack: melee": (lambda: pt_attack.attack_setup(AttackRequest(
        Combatant("a", "Ann", {**PT.default_sheet(), "weapons": [{"name": "Knife", "melee": True}]}, (0, 0), "pc"),
        pt_combatant("b", "Bob"), weapon=None, distance=1, options={})),
        "Phase/TN: der Abschnitt Nahkampfangriffe des Dokuments ist leer", None),
    "pt cover": (lambda: pt_cover.cover_effect(0.5), None, None),
    "pt turns: a burst from a semi-automatic": (
        lambda: pt.declare(declaring(), "a", [{"name": "three_round_burst", "target": "b"}], sheet=PT.default_sheet()),
        "Dreier-Feuerstoß braucht eine automatische Waffe; Sidearm ist halbautomatisch",
        "Ráfaga de tres necesita un arma automática; Sidearm es de semiautomática"),
    "pt turns: two free actions": (
        lambda: pt.declare(declaring(), "a", [{"name": "x", "length": "free"}, {"name": "y", "length": "free"}]),
        "höchstens 1 freie Aktion pro Phase", "como mucho 1 acción gratuita por fase"),
    "pt turns: a combined action's length": (
        lambda: pt.declare(declaring(), "a", [{"name": "target_and_fire", "target": "b", "length": "phase"}]),
        "Anvisieren und feuern ist eine Rundenaktion", "Fijar y disparar es una acción de ronda"),
    "pt turns: a locked action": (
        lambda: pt.change_target(pt.declare(declaring(), "a", [{"name": "full_auto", "target": "b"}]), "a1", "c"),
        "Dauerfeuer ist eine Rundenaktion: sie behält ihr Ziel; stattdessen abbrechen", None),
    "pt turns: no Targeting held": (
        lambda: PT.act({"combat": declaring(), "names": {"a": "Ann", "b": "Bob"}}, pt_combatant("a", "Ann"),
                       "lose_targeting", [pt_combatant("a", "Ann"), pt_combatant("b", "Bob")], ScriptedDice([])),
        "Ann hat nichts anvisiert", "Ann no tiene blanco fijado"),
    "pt sheet": (lambda: pt_sheet.validate_sheet({**PT.default_sheet(), "trauma": {"tail": 1}}),
                 "trauma.tail: keine Trefferzone; es gibt head, chest, abdomen, left arm, right arm, left leg, right leg",
                 None),
    "pt system: one target": (lambda: PT.attack(AttackRequest(pt_combatant("a", "Ann"), pt_combatant("b", "Bob"),
                                                              targets=[pt_combatant("b", "Bob"), pt_combatant("c", "Cy")],
                                                              weapon=None, distance=3), ScriptedDice([])), None, None),
    # Atomic Tomorrow
    "at attack: a situational step": (lambda: at_attack.prepare(at_request(bonus=30)),
                                      "bonus: einer von +0, +20, +40, nicht 30 (Situationsmodifikatoren gibt es in "
                                      "Schritten von 20)", None),
    "at attack: not an area weapon": (lambda: at_attack.attack_zone(at_request("Blast pistol"),
                                                                    [at_combatant("b", "Bob")], ScriptedDice([])),
                                      "Blast pistol ist keine Flächenwaffe", "Blast pistol no es un arma de área"),
    "at checks: a d100": (lambda: at_checks.check_roll(101), None, None),
    "at cover": (lambda: at_cover.resolve_cover("thick"),
                 "Deckung: einer von none, partial, good, excellent, nicht 'thick'",
                 "cobertura: uno de none, partial, good, excellent, no 'thick'"),
    "at data: a setting": (lambda: at_data.settings_with_defaults({"distant_penalty": 20}),
                           "distant_penalty ist 0 oder ein Abzug (-20, -40 ...), kein Bonus", None),
    "at data: a Wound Rating": (lambda: at_data.check_wound_rating(9), "ein Wundwert ist 1 bis 4, nicht 9",
                                "un Índice de heridas va de 1 a 4, no 9"),
    "at defense": (lambda: at_defense.defense_skill(AT.default_sheet(), "parry", "thrown"),
                   "ein Angriff ist melee oder ranged, nicht 'thrown'", None),
    "at economy": (lambda: at_economy.spend_action({"quick": True}, "quick"),
                   "die schnelle Aktion dieser Runde ist schon verbraucht",
                   "la acción rápida de esta ronda ya está gastada"),
    "at health": (lambda: at_health.wound_state(7), "Wunden sind 0 bis 5, nicht 7", None),
    "at movement": (lambda: at_movement.check_move(None), "kein Weg zwischen diesen Zonen",
                    "no hay camino entre esas zonas"),
    "at ranges: out of reach": (lambda: at_ranges.check_weapon_range({"name": "Blast pistol", "skill": "ranged",
                                                                      "ranges": ["near", "far"]}, "distant"),
                                "Blast pistol erreicht Nah, Fern; das Ziel ist auf Sehr fern",
                                "Blast pistol alcanza Cerca, Lejos; el objetivo está a Distante"),
    "at sheet": (lambda: at_sheet.validate_sheet(BAD_SHEET), "BRAWN: 1 bis 30, nicht 0", "BRAWN: de 1 a 30, no 0"),
    "at sheet: a weapon's skill": (lambda: at_sheet.normalise_weapon({"name": "Ray", "skill": "psionic"}),
                                   "Ray: die Fertigkeit ist eine von unarmed, melee, ranged, nicht 'psionic'", None),
    "at system: one target": (lambda: AT.attack(AttackRequest(at_combatant("a", "Ann"), at_combatant("b", "Bob"),
                                                              targets=[at_combatant("b", "Bob"), at_combatant("c", "Cy")],
                                                              weapon=None, distance=0), ScriptedDice([])), None, None),
    "at turns: surprise": (lambda: AT.begin_fight([at_combatant("a", "Ann", surprised=True)], ScriptedDice([])),
                           "Atomic Tomorrow Combat hat keine Überraschungsregel: jeder Kampf beginnt damit, dass alle "
                           "Initiative würfeln (INITIATIVE AND TURN SEQUENCE), also kann Ann nicht überrascht sein; "
                           "lasst die Figur aus dem Kampf, bis sie dazukommt",
                           "Atomic Tomorrow Combat no tiene regla de sorpresa: todo combate empieza con todos tirando "
                           "iniciativa (INITIATIVE AND TURN SEQUENCE), así que Ann no puede estar sorprendido; dejadlo "
                           "fuera del combate hasta que se una"),
    "at turns: a GRIT roll": (lambda: at_turns.act({"current": "a", "combatants": {"a": at_turns.fresh_combatant_state()}},
                                                   at_combatant("a", "Ann"), "grit_check", [], ScriptedDice([])),
                              "Ann ist nicht kampfunfähig (4 Wunden); kein GRIT-x1-Wurf nötig",
                              "Ann no está incapacitado (4 heridas); no hace falta tirada de GRIT x1"),
}

#: English words that must not be left in a translated line (the refusals' own vocabulary)
ENGLISH = re.compile(r"\b(is|are|the|not|needs?|must|whole|number|one of|setting|weapon|reaches|target|action|"
                     r"wounds?|cover|attack|located?|roll|no)\b")


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_refusal_is_rules_words_translated_in_german_and_spanish(name):
    call, german, spanish = REFUSALS[name]
    said = refusal(call)
    de, es = speech.words(said, "de"), speech.words(said, "es")
    assert de != str(said) and es != str(said), (str(said), de, es)  # the catalog's words, not the English
    if german is not None:
        assert de == german, de
    if spanish is not None:
        assert es == spanish, es
    for text, language in ((de, "de"), (es, "es")):
        # what is left in English is data: names, quoted values, setting keys, the document's own capitals
        plain = re.sub(r"'[^']*'|\b[a-z]+_[a-z_]+\b|\b[A-Z]{2,}[A-Z ]*\b|Ann|Bob|Cy|Sidearm|Blast pistol|Ray", "", text)
        if language == "de":
            assert not ENGLISH.search(plain), (name, text)


def test_a_sheet_refusal_says_its_reason_apart_in_the_readers_words():
    with pytest.raises(SheetError) as caught:
        at_sheet.validate_sheet({**AT.default_sheet(), "armour": "plate"})
    assert caught.value.path == ("armour",)
    assert speech.words(caught.value.reason, "de") == "einer von none, light, medium, heavy, nicht 'plate'"
    assert speech.words(caught.value.args[0], "fr") == "armure : l'un de none, light, medium, heavy, pas 'plate'"
    assert str(caught.value) == "armour is one of none, light, medium, heavy, not 'plate'"  # the English as before


def test_the_lines_badges_and_odds_are_said_too():
    # Phase/TN: the surprise line, a plural by the rounds
    ann, bob = pt_combatant("a", "Ann"), pt_combatant("b", "Bob", surprised=True)
    line = next(x for x in PT.begin_fight([ann, bob], ScriptedDice([5] * 8)).log if x.startswith("Bob is surprised"))
    assert speech.words(line, "de") == ("Bob ist überrascht: kann 1 Runde lang nicht reagieren, würfelt dann zu Beginn "
                                        "jeder Phase auf Reflexe (MW 8, +1 für jede misslungene Phase), um zu handeln.")
    # Phase/TN: a traumatic wound's default effect (a setting's own text would stay as written) in the reason to act
    down = Combatant("d", "Dee", {**PT.default_sheet(), "trauma": {"head": 1}}, (1, 1), "pc")
    why = PT.actions(PT.begin_fight([ann], ScriptedDice([5] * 8)).state, down)[0].reason
    assert speech.words(why, "de") == "nicht im Kampf (bewusstlos)", why
    # Phase/TN: a shot's odds, every outcome line in words
    odds = pt_odds.odds(pt_request(targeted=True))
    assert all(isinstance(o["label"], Say) for o in odds["outcomes"])
    assert [speech.words(o["label"], "de") for o in odds["outcomes"]][:2] == ["verfehlt", "Treffer: Kopf"]
    # Atomic Tomorrow: the badges, the odds' outcome lines, the skill line and the blast line
    hurt = {**AT.default_sheet(), "wounds": 4}
    assert [speech.words(b["label"], "es") for b in AT.badges(hurt)] == ["4 heridas", "Incapacitado",
                                                                         "GRIT x1 para actuar"]
    assert speech.words(at_odds.hit_label(2, 3), "de") == "Treffer: 2+ Wunden (sterbend)"
    assert speech.words(at_odds.defended_label("parry"), "fr") == "paré : pas de touche"
    prep = at_attack.prepare(at_request("Blast pistol"))
    assert speech.words(at_attack.skill_line(prep, prep["skill_base"] + 20), "de") == (
        f"Fernkampf {prep['skill_base']} %, {prep['skill_base'] + 20} % mit den Modifikatoren")
    moved = at_turns.move({"current": "a", "combatants": {"a": at_turns.fresh_combatant_state()}},
                          at_combatant("a", "Ann"), ["west", "east"], 1, [])
    assert speech.words(moved["log"][0], "de") == ("Ann bewegt sich in die nächste Zone (die Bewegung der Runde ist "
                                                   "verbraucht; Hauptaktion und schnelle Aktion bleiben)")
    assert str(moved["log"][0]) == ("Ann moves to the next zone (the round's move is spent; the significant action "
                                    "and the quick action left)")
