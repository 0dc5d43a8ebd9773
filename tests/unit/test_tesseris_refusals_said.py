"""Tesseris's refusals and rarer words are message ids (#37): one refusal (or line) of each module of
rules/tesseris_ads is raised or made here the way the app meets it, and checked to be a ``Say`` whose English is
the sentence it always was and whose German and Spanish come from the rules catalog, with the names and numbers
filled in and the rules' own words (an action, a defense, a status) said in the same language."""

from __future__ import annotations

import copy

import pytest

from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant, Effect, SheetError
from rules.tesseris_ads import actions, attack, cover, health, movement, odds, options, picks, sheet, spray, status
from rules.tesseris_ads import system as tess_system, ticks, turns
from rules.tesseris_ads.data import ACTIONS
from rules.text import Say
from webapp.game.core import speech
from rule_refusals import refusal


def fighter(cid: str, x: int, **changes) -> Combatant:
    s = sheet.default_sheet()
    s.update(changes)
    return Combatant(cid, cid.title(), s, (x, 0), side="a" if cid == "ann" else "b")




def in_(lang: str, words: Say) -> str:
    return speech.words(words, lang)


def said(words: Say, english: str, german: str, spanish_has: str) -> None:
    """The words: their English as before, their German exactly, their Spanish holding ``spanish_has``; no
    English left in the German (the catalog has it) and the Spanish is not the English."""
    assert str(words) == english
    assert in_("de", words) == german
    assert spanish_has in in_("es", words) and in_("es", words) != english


def ann_and_tom(**ann):
    return fighter("ann", 0, **ann), fighter("tom", 1)


def test_attack_refusals_say_the_action_and_the_weapon_in_the_readers_language():
    ann, tom = ann_and_tom()
    pummel = refusal(lambda: attack.plan_attack(AttackRequest(ann, tom, "knife", options={"action": "pummel"})))
    said(pummel, "Pummel needs a pinned opponent", "Einprügeln braucht einen niedergehaltenen Gegner",
         "Apalear necesita un oponente inmovilizado")
    pin = refusal(lambda: attack.plan_attack(AttackRequest(ann, tom, "knife", options={"action": "pin"})))
    said(pin, "Pin needs the attacker and the target grappled (Grapple first)",
         "Festhalten braucht Angreifer und Ziel im Griff (erst Ringen)", "(primero Presa)")
    mayhem = refusal(lambda: attack.plan_attack(AttackRequest(ann, tom, "knife", options={"mayhem": 3})))
    said(mayhem, "Ann has 0 Mayhem points, not 3", "Ann hat 0 Mayhem-Punkte, nicht 3", "Ann tiene 0 puntos de Mayhem")
    trip = refusal(lambda: attack.plan_attack(AttackRequest(ann, tom, "knife", options={"action": "trip", "defense": "block"})))
    said(trip, "Trip is resisted with Duck or Dodge or Athletics",
         "Zu Fall bringen widersteht man mit Ducken, Ausweichen oder Athletik", "Agacharse, Esquiva o Atletismo")


def test_a_called_shot_elsewhere_names_the_location_in_the_readers_words():  # picks.py
    words = refusal(lambda: picks.check_location(ACTIONS["called_shot"], "legs"))
    assert str(words) == ("Called Shot: at the head or a similarly vital area (Ranged Attack Actions, 'Called Shot'), "
                          "not the legs")
    german = in_("de", words)
    assert german.startswith("Gezielter Angriff: auf den Kopf") and "(Fernkampfaktionen, 'Gezielter Angriff')" in german
    assert "legs" not in german and "Beine" in german, german


def test_spray_n_pray_and_covering_fire_refusals_are_words():  # spray.py
    ann, tom = ann_and_tom()
    twice = AttackRequest(ann, tom, "rifle", options={"action": "spray_n_pray"},
                          targets=[AttackRequest(ann, tom, "rifle"), AttackRequest(ann, tom, "rifle")])
    words = refusal(lambda: spray.spray_targets(twice, sheet.weapon(ann.sheet, "rifle")))
    said(words, "Spray 'n Pray: each opponent may only be hit once (Ranged Attack Actions, 'Spray 'n Pray')",
         "Draufhalten und Beten (Spray 'n Pray): jeder Gegner darf nur einmal getroffen werden "
         "(Fernkampfaktionen, 'Spray 'n Pray')", "Rociar y rezar (Spray 'n Pray)")
    why = spray.covering_fire_refusal(AttackRequest(ann, tom, "pistol", options={"action": "covering_fire"}))
    said(why, "Covering Fire: only with a weapon that has a Full Auto option (Defensive Actions, 'Covering Fire')",
         "Deckungsfeuer: nur mit einer Waffe mit Dauerfeuer (Verteidigungsaktionen, 'Deckungsfeuer')",
         "Fuego de cobertura: solo con un arma con modo automático")


def test_turn_movement_and_tick_refusals_are_words():  # turns.py, movement.py, ticks.py, actions.py
    order = [{"id": "ann", "total": 5}, {"id": "tom", "total": 3}]
    said(refusal(lambda: turns.delay(order, "tom")), "the last character in the order has nobody to delay behind",
         "die letzte Figur der Reihenfolge hat niemanden, hinter den sie abwarten könnte", "no tiene a nadie")
    said(refusal(lambda: movement.check_move(sheet.default_sheet(), "charge", [(0, 0), (1, 0)])),
         "a Charge must move at least 2 squares before attacking",
         "ein Sturmangriff muss sich vor dem Angriff mindestens 2 Felder bewegen", "una Carga debe moverse")
    said(refusal(lambda: ticks.reaction_cost(ACTIONS["melee_strike"], {})),
         "Melee Strike cannot be taken as a reaction", "Nahkampfschlag geht nicht als Reaktion",
         "Golpe cuerpo a cuerpo")
    said(refusal(lambda: actions.clear_jam({"jammed": []})), "no jammed weapon to clear",
         "keine Waffe mit Ladehemmung zu beheben", "ningún arma encasquillada")
    not_ours = refusal(lambda: actions.social_status([], "taunt"))
    assert in_("de", not_ours).startswith("Tesseris: welchen Zustand ") and "die SL" in in_("de", not_ours)


def test_sheet_status_health_cover_and_system_refusals_are_words():
    bad = {**sheet.default_sheet(), "fate_points": "lots"}
    with pytest.raises(SheetError) as caught:
        sheet.validate_sheet(bad)
    assert caught.value.path == ("fate_points",) and isinstance(caught.value.reason, Say)
    said(caught.value.args[0], "fate_points: a whole number, not 'lots'", "fate_points: eine ganze Zahl, nicht 'lots'",
         "un número entero, no 'lots'")
    said(refusal(lambda: sheet.weapon(sheet.default_sheet(), "laser")),
         "no weapon 'laser' on the sheet; it has: rifle, pistol, knife, club",
         "keine Waffe 'laser' auf dem Bogen; er hat: rifle, pistol, knife, club", "ningún arma 'laser'")
    said(refusal(lambda: status.effect_of("Sleepy")), "unknown status effect 'Sleepy'",
         "unbekannter Zustand 'Sleepy'", "efecto de estado desconocido")
    said(refusal(lambda: health.burn_fate_point(sheet.default_sheet(), "a scar")),
         "a Fate point is burnt to survive death; this character is not dead",
         "ein Schicksalspunkt wird verbrannt, um den Tod zu überleben; diese Figur ist nicht tot", "punto de Destino")

    class Board:
        cover_pieces: dict = {}
        grid = None

    said(refusal(lambda: cover.take_cover({}, Board(), (3, 3))),
         "no cover piece in or next to this square to take cover behind",
         "kein Deckungsstück im oder neben diesem Feld, hinter dem man Deckung suchen könnte", "ningún elemento")
    ann, tom = ann_and_tom()
    unknown = AttackRequest(ann, tom, "rifle", options={"target_cover": {"id": "crate"}})
    said(refusal(lambda: tess_system.TesserisSystem().attack(unknown, SeededDice(1))),
         "the cover piece's material is unknown", "das Material des Deckungsstücks ist unbekannt", "el material")
    cheese = AttackRequest(ann, tom, "rifle", options={"target_cover": {"id": "crate", "material": "cheese"}})
    words = refusal(lambda: tess_system.TesserisSystem().attack(cheese, SeededDice(1)))
    assert str(words).startswith("unknown cover material 'cheese'; known: wood_thin, ")
    assert in_("de", words).startswith("unbekanntes Deckungsmaterial 'cheese'; bekannt: wood_thin, ")


def test_the_attack_card_says_why_an_action_is_not_open_and_its_hints_in_the_readers_language():  # options.py
    ann, tom = ann_and_tom()
    card = options.attack_options(AttackRequest(ann, tom, "knife"))
    by_key = {o["key"]: o for o in card}
    action = by_key["action"]
    assert isinstance(action["help"], Say)
    german = in_("de", action["help"])
    assert german.startswith("Jetzt nicht: ") and "Einprügeln braucht einen niedergehaltenen Gegner" in german, german
    assert "needs" not in german and "Not now" not in german, german
    called = by_key["called_at"]
    said(called["reason"], "only with a Called Shot (Ranged Attack Actions)",
         "nur mit einem Gezielten Angriff (Fernkampfaktionen)", "solo con un Ataque apuntado")
    outnumber = options.attack_options(AttackRequest(ann, tom, "rifle"))
    reason = next(o for o in outnumber if o["key"] == "outnumber")["reason"]
    said(reason, "Straight Shot is no melee attack (Common Physical Combat Modifiers: Outnumber Opponent)",
         "Gezielter Schuss ist kein Nahkampfangriff (Allgemeine Modifikatoren im körperlichen Kampf: Überzahl)",
         "no es un ataque cuerpo a cuerpo")


def test_the_odds_outcome_lines_and_the_defenders_modifiers_are_words():  # odds.py
    ann, tom = ann_and_tom()
    seen = odds.attack_odds(AttackRequest(ann, tom, "knife", options={"defense": "dodge"}))
    labels = [o["label"] for o in seen["outcomes"]]
    assert labels and all(isinstance(label, Say) for label in labels), labels
    assert "Dodge avoids" in labels and in_("de", labels[labels.index("Dodge avoids")]) == "Ausweichen wehrt ab"
    hits = [label for label in labels if label.startswith("hit:")]
    assert hits and all(in_("de", h).startswith("Treffer: ") for h in hits), hits
    mods = [m["label"] for m in seen["modifiers"] if str(m["label"]).startswith("Tom's Dodge")]
    assert mods and all(in_("es", m).startswith("Esquiva de Tom: ") for m in mods), mods


def test_the_rarer_lines_say_the_maneuver_and_the_end_of_the_fight_in_the_readers_language():  # attack.py, turns.py
    ann, tom = ann_and_tom()
    tom = Combatant(tom.id, tom.name, {**tom.sheet, "statuses": [{"name": "Grappled", "rounds": None, "source": None}]},
                    tom.position, side=tom.side)
    ann = Combatant(ann.id, ann.name, {**ann.sheet, "statuses": [{"name": "Grappled", "rounds": None, "source": None}]},
                    ann.position, side=ann.side)
    result = attack.resolve_attack(AttackRequest(ann, tom, "knife", options={"action": "pin", "defense": "none",
                                                                              "dt_successes": 3}),
                                   SeededDice(2))
    total = result.details["attack_total"]  # 3 successes and Ann's modifiers
    assert result.summary == f"Ann pins Tom ({total} vs no resistance)", result.summary
    assert in_("de", result.summary) == f"Ann hält Tom nieder ({total} gegen kein Widerstand)"
    card = attack.effect_words(Effect("status", "tom", {"add": "Pinned", "reason": ACTIONS["pin"].name}), {})
    assert str(card) == "Pinned (Pin)" and in_("fr", card) == "Immobilisé (Immobiliser)"
    dazed = attack.effect_words(Effect("status", "tom", {"add": "Dazed", "reason": ACTIONS["knockout_blow"].name}), {})
    assert in_("de", dazed).startswith("Benebelt (") and "Dazed" not in in_("de", dazed)
    hurt = copy.deepcopy(ann.sheet) | {"mayhem": 2, "statuses": [{"name": "Dazed", "rounds": 1, "source": None}]}
    update = turns.end_fight({}, [Combatant("ann", "Ann", hurt, (0, 0))], SeededDice(3))
    lines = [line for line in update.log if isinstance(line, Say)]
    assert len(lines) == len(update.log) == 1, update.log  # "The fight is over" is the table's own line (#58)
    assert str(lines[0]) == "Ann: 2 unspent Mayhem points lost; Dazed ended", lines[0]
    assert in_("de", lines[0]) == "Ann: 2 nicht ausgegebene Mayhem-Punkte verloren; Benebelt beendet"


def test_every_range_band_the_card_shows_is_words():
    """The attack card names the band (``band_words``, webapp/game/fight/attacks.py ``band_label``): each key
    ``range_band`` gives is words, never the key itself ("short" on a German card)."""
    from rules import get
    from rules.tesseris_ads.attack import range_band_name

    system = get("tesseris_ads")
    keys = {range_band_name(d, 10) for d in range(0, 31)} - {None} | {system.range_band(1, {"kind": "melee"})}
    assert keys <= set(system.band_words), keys - set(system.band_words)
    for key in keys:
        assert isinstance(system.band_words[key], Say)
        assert in_("de", system.band_words[key]) != str(system.band_words[key]), key  # translated
