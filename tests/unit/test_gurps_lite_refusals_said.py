"""GURPS Lite's rarer words in the reader's language (#37): a refusal of every rules module (cover, movement,
maneuvers, ranged fire, hit locations, injury, several targets, the sheet, defenses, the attack, the odds, the
turn, the attack card's options) is a ``Say`` whose German and French are the catalog's, with its names, numbers
and the rules' own words (a maneuver's, a location's name) filled in; the attack card's labels, hints and "why
not" reasons and the rarer attack lines (a feint, several targets, a laid area attack) are words too."""

from __future__ import annotations

import pytest

from rules.dice import SeededDice
from rules.gurps_lite.attack import attack as resolve_attack
from rules.gurps_lite.cover import cover_effect
from rules.gurps_lite.defenses import AttackInfo, defense_level
from rules.gurps_lite.health import effective_dr
from rules.gurps_lite.locations import hit_location
from rules.gurps_lite.maneuvers import chosen_maneuver
from rules.gurps_lite.movement import maneuver_movement
from rules.gurps_lite.ranged import rapid_fire_bonus, rapid_strike_shots
from rules.gurps_lite.sheet import attack_weapon, validate_sheet
from rules.gurps_lite.turns import act, begin_fight
from rules.system import Combatant, RuleNotImplemented, SheetError
from rules.text import Say
from webapp.game.core import speech

from test_gurps_lite_choices import S, multi, req
from test_gurps_lite_combat import rolls
from rule_refusals import refusal




def in_(lang: str, words) -> str:
    return speech.words(words, lang)


def test_a_refusal_of_each_module_is_said_in_german_and_french():
    sheet = S.default_sheet()
    cases = [
        # (the refusal, its English, its German, its French)
        (refusal(cover_effect, "bunker"), "unknown cover level 'bunker'", "unbekannte Deckungsstufe 'bunker'",
         "niveau de couvert inconnu 'bunker'"),
        (refusal(maneuver_movement, sheet, "fly"), "unknown maneuver 'fly'", "unbekanntes Manöver 'fly'",
         "manœuvre inconnue 'fly'"),
        (refusal(chosen_maneuver, {"maneuver": "all_out_attack", "variant": "long"},
                 {"maneuver": "all_out_attack", "variant": "strong"}),
         "the turn's option is strong: one maneuver a turn", "die Option des Zuges ist stark: ein Manöver pro Zug",
         "l'option du tour est puissante : une manœuvre par tour"),
        (refusal(rapid_fire_bonus, 0), "a rapid-fire attack fires at least one shot",
         "ein Schnellfeuerangriff feuert mindestens einen Schuss", "une attaque en tir rapide tire au moins un coup"),
        (refusal(rapid_strike_shots, 10, 2, [1, 1, 1]), "a Rapid Strike into 2 attacks splits its shots 2 ways",
         "ein Schneller Schlag in 2 Angriffe teilt seine Schüsse 2-fach",
         "une frappe rapide en 2 attaques répartit ses coups en 2"),
        (refusal(hit_location, 2), "a 3d6 roll is 3 to 18, not 2", "ein 3d6-Wurf ist 3 bis 18, nicht 2",
         "un jet de 3d6 va de 3 à 18, pas 2"),
        (refusal(effective_dr, 3, 0), "an armour divisor must be positive", "ein Rüstungsteiler muss positiv sein",
         "un diviseur d'armure doit être positif"),
        (refusal(attack_weapon, sheet, "Laser"), "no weapon 'Laser' on the sheet",
         "keine Waffe 'Laser' auf dem Bogen", "pas d'arme 'Laser' sur la feuille"),
        (refusal(defense_level, sheet, {"maneuver": "all_out_attack"}, {"type": "dodge"}, AttackInfo()),
         "no active defense after All-Out Attack (melee)",
         "keine aktive Verteidigung nach Totaler Angriff (Nahkampf)",
         "aucune défense active après Attaque totale (mêlée)"),
        (refusal(S.attack, multi("Broadsword", {"rapid_strike": True}, [(2, 1), (2, 2), (1, 2)]), SeededDice(1)),
         "a Rapid Strike makes 2 attacks: at most 2 targets (3d6 Combat, 'Attacking', 'Rapid Strike')",
         "ein Schneller Schlag macht 2 Angriffe: höchstens 2 Ziele (3d6 Combat, 'Attacking', 'Rapid Strike')",
         "une frappe rapide fait 2 attaques : 2 cibles au plus (3d6 Combat, « Attacking », « Rapid Strike »)"),
        (refusal(resolve_attack, req("Broadsword", {"tip_slash": True}), SeededDice(1)),
         "Tip Slash needs a thrusting impaling attack", "Spitzenhieb braucht einen stechenden Stoßangriff",
         "la taille de pointe demande une attaque d'estoc perforante"),
        (refusal(resolve_attack, req("Broadsword", {"location": "eye"}), SeededDice(1)),
         "Eye can only be targeted by imp, pi-, pi, pi+, pi++, tbb",
         "Auge kann nur mit imp, pi-, pi, pi+, pi++, tbb angegriffen werden",
         "Œil ne peut être visé(e) qu'avec imp, pi-, pi, pi+, pi++, tbb"),
        (refusal(S.odds, req("Grenade")),
         "odds of an area attack at a token (its scatter by the dive) are not computed: lay the sphere template "
         "for them", "die Chancen eines Flächenangriffs auf eine Spielfigur (ihre Abweichung durch den Hechtsprung) "
         "werden nicht berechnet: lege dafür die Kugelschablone",
         "les chances d'une attaque de zone sur un pion (sa déviation par le plongeon) ne sont pas calculées : posez "
         "le gabarit de sphère pour les avoir"),
        # the attack card refuses an option the rules do not open now, with the rule's reason inside
        (refusal(S.attack, req("SMG", {"deceptive": 1}), SeededDice(1)),
         "Deceptive Attack (-2 to hit per -1 to the defense): melee attacks only (reading: it is named with the "
         "Riposte, a melee defense) (3d6 Combat, 'Defending', 'Riposte')",
         "Täuschender Angriff (-2 auf den Treffer je -1 auf die Verteidigung): nur Nahkampfangriffe (Auslegung: er "
         "wird bei der Riposte genannt, einer Nahkampfverteidigung) (3d6 Combat, 'Defending', 'Riposte')",
         "Attaque trompeuse (-2 au toucher par -1 à la défense) : attaques de mêlée seulement (lecture : elle est "
         "citée avec la riposte, une défense de mêlée) (3d6 Combat, « Defending », « Riposte »)"),
    ]
    for said, english, german, french in cases:
        assert str(said) == english
        assert in_("de", said) == german
        assert in_("fr", said) == french
        assert in_("es", said) != english  # the third language has it too


def test_a_sheet_check_names_the_field_as_data_and_says_why_in_words():
    with pytest.raises(SheetError) as caught:
        validate_sheet({"ST": "strong"})
    exc = caught.value
    assert exc.path == ("ST",) and str(exc) == "ST: a whole number, not 'strong'"
    assert isinstance(exc.args[0], Say) and isinstance(exc.reason, Say)
    assert in_("de", exc.args[0]) == "ST: eine ganze Zahl, nicht 'strong'"
    assert in_("es", exc.reason) == "un número entero, no 'strong'"


def fight(*names):
    people = [Combatant(n.lower(), n, S.default_sheet(), (i, 1), "pc" if i == 0 else "npc", i == 0)
              for i, n in enumerate(names)]
    state = begin_fight(people, rolls(10, 12)).state
    return state, {c.id: c for c in people}


def test_the_turns_refusals_and_why_a_maneuver_is_closed_are_said():
    state, people = fight("Ann", "Bob")
    actor = people[state["current"]]
    chosen = act(state, actor, "attack", list(people.values()), rolls()).state
    twice = refusal(act, chosen, actor, "move", list(people.values()), rolls())
    assert str(twice) == "one maneuver a turn: Attack is chosen"
    assert in_("de", twice) == "ein Manöver pro Zug: Angriff ist gewählt"
    assert in_("fr", twice) == "une manœuvre par tour : Attaque est choisie"
    with pytest.raises(RuleNotImplemented) as caught:
        act(state, actor, "cartwheel", list(people.values()), rolls())
    assert in_("de", caught.value.args[0]) == "die Aktion 'cartwheel' ist nicht automatisiert (die SL entscheidet)"
    # the actions list's reasons for a maneuver that is not open now
    closed = {a.key: a for a in S.actions(chosen, actor)}
    assert not closed["move"].available and isinstance(closed["move"].reason, Say)
    assert in_("es", closed["move"].reason) == "una maniobra por turno: se ha elegido Ataque"


def test_the_attack_cards_labels_hints_and_reasons_are_words():
    """Every label, hint and "why not" of the attack card is a Say (German differs from English), but data: a
    weapon's name (the target's weapons), a number."""
    for request in (req("Broadsword"), req("SMG"), req("Broadsword", {"maneuver": "feint"}),
                    req("Broadsword", attacker_state={"maneuver": "move", "attacks": 0})):
        for o in S.attack_options(request):
            for part in ("label", "help", "reason"):
                text = o.get(part) or ""
                if text:
                    assert isinstance(text, Say), (o["key"], part, text)
                    assert in_("de", text) != str(text), (o["key"], part, text)
            for v in o.get("values") or []:
                if o["key"] != "target_weapon":  # the target's weapons by name: data
                    assert isinstance(v["label"], Say), (o["key"], v)
    card = {o["key"]: o for o in S.attack_options(req("SMG"))}
    assert in_("de", card["tip_slash"]["reason"]) == ("braucht eine stechende Stoßwaffe (3d6 Combat, 'Attacking', "
                                                      "'Tip Slash')")
    skull = next(v for v in card["location"]["values"] if v["key"] == "skull")
    assert str(skull["label"]) == "Skull (-7)" and in_("fr", skull["label"]) == "Crâne (-7)"


def test_the_rarer_attack_lines_and_modifiers_are_words():
    # a feint: "-n to the target's defense" or no effect
    feint = S.attack(req("Broadsword", {"maneuver": "feint"}), rolls(5, 14))
    assert isinstance(feint.summary, Say)
    assert in_("de", feint.summary).startswith("Ann täuscht Bob: -")
    # a Rapid Strike at two targets: the line, its parts and its modifiers per target
    r = S.attack(multi("Broadsword", {"rapid_strike": True, "defense": "none"}, [(2, 1), (2, 2)]), rolls(5, [3], 12))
    assert str(r.summary).startswith("Ann attacks Foe 0, Foe 1 (Rapid Strike): Foe 0:")
    assert in_("de", r.summary).startswith("Ann greift Foe 0, Foe 1 an (Schneller Schlag): Foe 0:")
    assert "Rapid Strike" not in in_("de", r.summary)
    labels = [m.label for m in r.modifiers]
    assert "Foe 0: Rapid Strike x2" in labels and all(isinstance(x, Say) for x in labels)
    assert "Foe 1: Schneller Schlag x2" in [in_("de", x) for x in labels]
    # the preview's odds: its outcome lines are words
    odds = S.odds(req("Broadsword", {"defense": "dodge"}))
    for line in odds["outcomes"]:
        assert isinstance(line["label"], Say) and in_("de", line["label"]) != str(line["label"]), line
    spray = S.odds(multi("SMG", {"spraying_fire": True}, [(5, 1), (5, 3)]))
    assert str(spray["note"]) == "Spraying Fire at 2 targets, 1 shot wasted sweeping"
    assert in_("es", spray["note"]) == "Fuego en barrido contra 2 blancos, 1 disparo perdido al barrer"


def test_the_range_band_and_the_cover_on_the_card_are_words():
    band = S.range_band(50, {"max": 200})
    assert band == "medium" and isinstance(band, Say) and in_("de", band) == "mittel"
    assert in_("fr", S.range_band(3, {"max": 200})) == "proche"
    assert in_("es", S.cover_effect(0.5).label) == "cobertura: parcial (50%)"
    assert in_("de", S.cover_effect(None).label) == "keine Deckung"


def test_a_laid_area_attacks_line_is_said():
    grenade = req("Grenade", {"template": "sphere", "centre": [5, 5], "defense": "none"}, at=(9, 9))
    res = S.attack(grenade, SeededDice(3))
    assert isinstance(res.summary, Say)
    assert str(res.summary).startswith("Ann attacks the square [5, 5]: ")
    assert in_("de", res.summary).startswith("Ann greift das Feld [5, 5] an: ")
    assert in_("fr", res.summary).startswith("Ann attaque la case [5, 5] : ")
