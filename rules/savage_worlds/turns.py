"""Turns: the action deck (dealing, Edges that change the deal, order Ace to
2 with suit ties, Jokers), Surprise, Hold and interrupts, the actions of a
turn and their multi-action penalty.

Sources: *Savage Worlds Combat System Reference*, "Initiative (Action
Cards)", "Actions Per Turn", "Surprise" and "Hold".
"""

from __future__ import annotations

import json

from ..dice import DiceSource, RollRecord
from ..system import (ActionOption, AttackResult, Combatant, Effect, Modifier, MoveResult, RuleError,
                      RuleNotImplemented, TurnUpdate)
from .checks import opposed_roll, parse_die, trait_roll
from .data import (CORE, JOKER_BONUS, JOKERS, MULTI_ACTION_STEP, RANKS, RUNNING_PENALTY, STAND_COST, SUITS,
                   merged_settings)
from .health import condition_modifiers
from .movement import adjacent, running_needs, withdraw_attackers
from .sheet import derived_values, skill_die, weapon_stats
from ..text import say, say_n
from .data import SKILL_WORDS


def multi_action_penalty(actions: int) -> int:
    """Actions Per Turn: -2 per action beyond the first, to every action that turn."""
    if actions < 1:
        raise RuleError(say("a turn has at least one action"))
    return MULTI_ACTION_STEP * (actions - 1)


def _card_key(card: str) -> tuple[int, int]:
    card = str(card).upper()
    if card in JOKERS:
        return (-1, JOKERS.index(card))
    rank, suit = card[:-1], card[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise RuleError(say("not an action card: {card} (write AS, 10H, 2C, RJ or BJ)", card=repr(card)))
    return (RANKS.index(rank), SUITS.index(suit))


def action_order(cards: list[str]) -> list[str]:
    """Initiative: Jokers first (they act when they like), then Ace down to 2,
    ties broken Spades, Hearts, Diamonds, Clubs."""
    return sorted(cards, key=_card_key)


def is_joker(card: str | None) -> bool:
    return str(card or "").upper() in JOKERS


def card_value(card: str) -> int:
    """2..14 for a rank (Ace 14), 15 for a Joker: Quick's "5 or lower" reads this."""
    key = _card_key(card)[0]
    return 15 if key < 0 else 14 - key


def new_deck() -> list[str]:
    """A poker deck with two Jokers, 54 cards, in a fixed (unshuffled) order."""
    return [r + s for s in SUITS for r in RANKS] + list(JOKERS)


_SHUFFLE = say("shuffle the action deck")  #: each shuffling die's purpose (one words for the 53 of a shuffle)


def shuffle(cards: list[str], dice: DiceSource) -> tuple[list[str], list[RollRecord]]:
    """Fisher-Yates through the dice source, so a seed replays and a test scripts it."""
    out = list(cards)
    rolls = []
    for i in range(len(out) - 1, 0, -1):
        r = dice.roll(f"d{i + 1}", _SHUFFLE)
        rolls.append(r)
        j = r.total - 1
        out[i], out[j] = out[j], out[i]
    return out, rolls


def fresh_deck(dice: DiceSource) -> dict:
    """A shuffled deck as the plain data a game stores.

    ``draw``: cards left, dealt from the front of the list;
    ``discard``: cards dealt in earlier rounds; ``dealt``: cards out this
    round; ``joker_dealt``: a Joker came up this round (reshuffle before the next).
    """
    cards, _ = shuffle(new_deck(), dice)
    return {"draw": cards, "discard": [], "dealt": [], "joker_dealt": False}


def _check_deck(deck: dict) -> dict:
    try:
        d = {
            "draw": [str(c).upper() for c in deck["draw"]],
            "discard": [str(c).upper() for c in deck.get("discard", [])],
            "dealt": [str(c).upper() for c in deck.get("dealt", [])],
            "joker_dealt": bool(deck.get("joker_dealt", False)),
        }
    except (KeyError, TypeError):
        raise RuleError(say("an action deck needs a 'draw' list")) from None
    every = d["draw"] + d["discard"] + d["dealt"]
    for c in every:
        _card_key(c)
    if sorted(every) != sorted(new_deck()):
        raise RuleError(say("the action deck does not hold the 54 cards once each"))
    return d


def draw_card(deck: dict, dice: DiceSource) -> tuple[str, dict]:
    """Deal one card; an empty draw pile is refilled from the shuffled discards."""
    d = dict(deck, draw=list(deck["draw"]), discard=list(deck["discard"]), dealt=list(deck["dealt"]))
    if not d["draw"]:
        if not d["discard"]:
            raise RuleError(say("every card of the action deck is out"))
        d["draw"], _ = shuffle(d["discard"], dice)
        d["discard"] = []
    card = d["draw"].pop(0)
    d["dealt"].append(card)
    if is_joker(card):
        d["joker_dealt"] = True
    return card, d


def start_round(deck: dict | None, dice: DiceSource) -> dict:
    """Initiative: the round's cards go to the discards; after a round in which
    a Joker was dealt, the whole deck is reshuffled."""
    if deck is None:
        return fresh_deck(dice)
    d = _check_deck(deck)
    if d["joker_dealt"]:
        return fresh_deck(dice)
    d["discard"] += d["dealt"]
    d["dealt"] = []
    return d


def _deal_for(edges: list[str], deck: dict, dice: DiceSource, card_edges: dict) -> tuple[str, list[str], dict]:
    extra, keep, redraw = 0, "best", None
    for e in edges:
        rule = card_edges.get(e)
        if not rule:
            continue
        if rule.get("keep") == "worst":
            keep = "worst"
        extra = max(extra, int(rule.get("extra", 0)))
        if rule.get("redraw_at_or_below") is not None:
            redraw = int(rule["redraw_at_or_below"])
    drawn = []
    for _ in range(1 + extra):
        c, deck = draw_card(deck, dice)
        drawn.append(c)
    jokers = [c for c in drawn if is_joker(c)]
    if jokers:  # a Joker is always kept (it is the best card, even for Hesitant)
        card = jokers[0]
    else:
        ordered = action_order(drawn)
        card = ordered[0] if keep == "best" else ordered[-1]
    while redraw is not None and not is_joker(card) and card_value(card) <= redraw:
        card, deck = draw_card(deck, dice)
        drawn.append(card)
    return card, drawn, deck


def deal_round(
    deck: dict | None,
    combatants: list[Combatant],
    dice: DiceSource,
    settings: dict | None = None,
    *,
    first_round: bool = False,
) -> dict:
    """Initiative (Action Cards), Surprise and Hold.

    Each Wild Card gets a card, Extras share one card per group (sheet
    ``group``, else per side). A combatant whose ``state["on_hold"]`` is set
    keeps Hold and gets no card. In the first round, ``state["surprise"]``
    ``"attacker"`` starts on Hold; ``"victim"`` rolls Notice: failure means
    no card and no action this round. A Joker acts when it likes with +2 to
    trait and damage rolls, and each Wild Card on its side gets a Benny.

    Returns ``order`` (acting order), ``deck`` (the new deck to store),
    ``effects`` (Bennies) and ``rolls``.
    """
    out, records = _deal(deck, combatants, dice, settings, first_round)
    return {**out, "rolls": [r.to_dict() for r in records]}


def _deal(deck: dict | None, combatants: list[Combatant], dice: DiceSource, settings: dict | None,
          first_round: bool) -> tuple[dict, list[RollRecord]]:
    settings = merged_settings(settings)
    deck = start_round(deck, dice)
    rolls: list[RollRecord] = []
    entries: list[dict] = []
    group_cards: dict[str, dict] = {}
    for c in combatants:
        sheet = c.sheet or {}
        state = c.state or {}
        wild = bool(sheet.get("wild_card", True))
        entry = {"id": c.id, "name": c.name, "side": c.side, "card": None, "drawn": [],
                 "joker": False, "on_hold": False, "acts": True}
        if sheet.get("incapacitated"):
            entry["acts"] = False
            entry["reason"] = say("Incapacitated")
            entries.append(entry)
            continue
        surprise = state.get("surprise") if first_round else None
        if surprise == "attacker" or state.get("on_hold"):
            entry["on_hold"] = True
            entries.append(entry)
            continue
        if surprise == "victim":
            notice = sheet.get("skills", {}).get("notice")
            die, mods = (notice, []) if notice else ("d4", [Modifier(say("Unskilled"), -2, CORE)])
            tr = trait_roll(die, dice, wild_card=wild, modifiers=mods + condition_modifiers(sheet), name=say("Notice"),
                            roller=c.id)
            rolls += [r for r in (tr.trait, tr.wild) if r]
            entry["notice"] = tr.to_dict()
            if not tr.success:
                entry["acts"] = False
                entry["reason"] = say("Surprised (failed Notice)")
                entries.append(entry)
                continue
        if not wild:
            key = str(sheet.get("group") or f"extras:{c.side}")
            if key in group_cards:
                shared = group_cards[key]
                entry.update(card=shared["card"], joker=shared["joker"], group=key, shared=True)
                entries.append(entry)
                continue
        edges = list(sheet.get("edges", [])) + list(sheet.get("hindrances", []))
        card, drawn, deck = _deal_for(edges, deck, dice, settings["card_edges"])
        entry.update(card=card, drawn=drawn, joker=is_joker(card))
        if not wild:
            entry["group"] = key
            group_cards[key] = entry
        entries.append(entry)

    carded = [e for e in entries if e["card"]]
    by_card: dict[str, list[dict]] = {}
    for e in carded:
        by_card.setdefault(e["card"], []).append(e)
    order = [e for card in action_order(list(by_card)) for e in by_card[card]]
    order += [e for e in entries if e["on_hold"]]
    waiting = [e for e in entries if not e["card"] and not e["on_hold"]]

    effects: list[Effect] = []
    for e in carded:
        if e["joker"] and not e.get("shared"):
            for c in combatants:
                if c.side == e["side"] and (c.sheet or {}).get("wild_card", True) and not (c.sheet or {}).get("incapacitated"):
                    effects.append(Effect("benny", c.id, {"amount": 1, "reason": say("{name} drew a Joker", name=e["name"])}))
    return {"order": order, "not_acting": waiting, "deck": deck, "effects": [x.to_dict() for x in effects]}, rolls


# ---------------------------------------------------------------- the fight lifecycle
#
# The state is plain JSON data the app stores and hands back:
#   {"round": n, "deck": {...}, "order": [every fighter: the cards in acting order, then those on Hold,
#              then those who cannot act this round],
#    "index": the slot of the turn in progress, "current": id or None,
#    "resume": [ids whose turn an interrupt paused, last first],
#    "after": [ids that lost an interrupt: they act as soon as the current turn ends],
#    "combatants": {id: per-combatant state}}
# and the per-combatant state (``Combatant.state`` for attacks and moves):
#   card, drawn, joker, on_hold, surprise_hold (on Hold as a surprise's attacker: it lasts the first
#   round, then the attacker is dealt in), acted, surprised, actions (declared this turn), used (actions
#   taken this turn: attacks and other actions), moved (inches moved this turn), ran,
#   run_allowance, stood, free_only (Shaken: free actions only this turn).

_TURN_FRESH = {"actions": 1, "used": 0, "moved": 0.0, "ran": False, "run_allowance": None, "stood": False,
               "free_only": False}


def _by_id(combatants: list[Combatant]) -> dict[str, Combatant]:
    return {c.id: c for c in combatants}


def _can_act(c: Combatant | None) -> bool:
    return c is not None and not (c.sheet or {}).get("incapacitated")


def _fresh_state(prev: dict | None = None) -> dict:
    base = {"card": None, "drawn": [], "joker": False, "on_hold": False, "acted": False, "surprised": False}
    base.update(_TURN_FRESH)
    if prev:
        base["on_hold"] = bool(prev.get("on_hold"))
    return base


def _new_round(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict,
               first_round: bool) -> tuple[dict, list[RollRecord], list[str], dict[str, dict]]:
    """Initiative (Action Cards): deal the round (a reshuffle first after a
    round in which a Joker was dealt), Bennies for a Joker's side."""
    log: list[str] = []
    prev_deck = state.get("deck")
    if prev_deck and prev_deck.get("joker_dealt"):
        log.append(say("A Joker was dealt last round: the action deck is reshuffled"))
    per = state.get("combatants", {})
    dealt_to = []
    for c in combatants:
        cs = dict(c.state or {}) if first_round else {}
        kept = per.get(c.id, {})
        if kept.get("on_hold") and not kept.get("surprise_hold"):  # Hold taken by choice is kept
            cs["on_hold"] = True
        elif kept.get("surprise_hold") and kept.get("on_hold"):
            log.append(say("{name}'s Hold from the surprise ends with the first round: dealt in", name=c.name))
        dealt_to.append(Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, cs))
    out, rolls = _deal(prev_deck, dealt_to, dice, settings, first_round)
    by_id_state = {c.id: c.state for c in dealt_to}
    new_per = {cid: dict(cs) for cid, cs in per.items()}
    for e in out["order"] + out["not_acting"]:
        cs = _fresh_state(per.get(e["id"]))
        cs.update(card=e["card"], drawn=list(e["drawn"]), joker=bool(e["joker"]), on_hold=bool(e["on_hold"]))
        attacker = first_round and (by_id_state.get(e["id"]) or {}).get("surprise") == "attacker"
        cs["surprise_hold"] = bool(attacker and e["on_hold"])
        if e.get("reason"):
            cs["acted"] = True
            cs["surprised"] = e["reason"].startswith("Surprised")
            log.append(say("{name}: {reason}, no action card this round", name=e["name"], reason=e["reason"]))
        elif e["on_hold"]:
            log.append(say("{name} is on Hold (Surprise: an attacker; act from Hold this round)", name=e["name"])
                       if attacker else say("{name} is on Hold", name=e["name"]))
        elif e.get("notice"):
            log.append(say("{name} was surprised but makes the Notice roll ({total}): dealt {card}", name=e["name"],
                           total=e["notice"].get("total"), card=e["card"]))
        elif e.get("shared"):
            log.append(say("{name} acts on its group's card, {card}", name=e["name"], card=e["card"]))
        else:
            log.append(say("{name} is dealt {card} (Joker: +2 to trait and damage rolls this round)", name=e["name"],
                           card=e["card"]) if e["joker"] else say("{name} is dealt {card}", name=e["name"], card=e["card"]))
        new_per[e["id"]] = cs
    changes: dict[str, dict] = {}
    by_id = _by_id(combatants)
    for eff in out["effects"]:
        tid = eff["target"]
        current = changes.get(tid, {}).get("bennies", int((by_id[tid].sheet or {}).get("bennies", 0) or 0))
        changes.setdefault(tid, {})["bennies"] = current + int(eff["data"].get("amount", 1))
        log.append(say("{name} gets a Benny ({reason})", name=by_id[tid].name, reason=eff["data"].get("reason", say("Joker"))))
    # every fighter stays in the order (the app's list of who is in the fight): the cards in acting
    # order, then those on Hold, then those who cannot act this round (a failed Notice, Incapacitated)
    order = [e["id"] for e in out["order"] + out["not_acting"]]
    new = {**state, "round": int(state.get("round", 0)) + 1, "deck": out["deck"], "order": order, "index": -1,
           "current": None, "resume": [], "after": [], "combatants": new_per}
    return new, rolls, log, changes


def check_shaken_recovery(rule) -> str:
    """The ``shaken_recovery`` setting: "swade" or "classic"; RuleError otherwise."""
    if rule not in ("swade", "classic"):
        raise RuleError(say("shaken_recovery is 'swade' or 'classic', not {value}", value=repr(rule)))
    return rule


def shaken_recovery(c: Combatant, per: dict, dice: DiceSource, settings: dict) -> dict:
    """Start of a Shaken character's turn (core rules, reading; the reference
    is silent): a Spirit roll, with wound, Fatigue and Joker modifiers. With
    ``shaken_recovery`` "swade" a success ends Shaken and the character acts
    normally; with "classic" a success ends Shaken but only free actions are
    left this turn, and a raise acts normally. A failure stays Shaken: free
    actions only (movement is not an action)."""
    sheet = c.sheet or {}
    die = (sheet.get("attributes") or {}).get("spirit", "d4")
    mods = condition_modifiers(sheet)
    if per.get("joker"):
        mods.append(Modifier(say("Joker"), JOKER_BONUS, "Initiative (Action Cards)"))
    tr = trait_roll(die, dice, wild_card=bool(sheet.get("wild_card", True)), modifiers=mods, name=say("Spirit"),
                    roller=c.id)
    rule = check_shaken_recovery(settings["shaken_recovery"])
    recovered = tr.success
    free_only = not tr.success or (rule == "classic" and tr.raises == 0)
    if tr.critical_failure:
        what = say("critical failure: still Shaken")
    elif not recovered:
        what = say("still Shaken: free actions only this turn")
    elif free_only:
        what = say("no longer Shaken, but only free actions this turn (a raise was needed to act)")
    else:
        what = say("no longer Shaken and acts")
    return {"roll": tr, "recovered": recovered, "free_only": free_only,
            "log": say("{name} rolls Spirit to recover from Shaken: {total} vs 4, {what}", name=c.name, total=tr.total,
                       what=what)}


def _start_turn(state: dict, cid: str, combatants: list[Combatant], dice: DiceSource, settings: dict,
                rolls: list, log: list, changes: dict) -> None:
    """Start-of-turn steps: fresh turn counters, and the Shaken recovery roll."""
    c = _by_id(combatants).get(cid)
    per = state["combatants"].setdefault(cid, _fresh_state())
    per.update(_TURN_FRESH)
    per["on_hold"] = False
    state["current"] = cid
    if c is None:
        return
    log.append(say("{name}'s turn ({card})", name=c.name, card=per["card"]) if per.get("card") else
               say("{name}'s turn", name=c.name))
    sheet = {**(c.sheet or {}), **changes.get(cid, {})}
    if sheet.get("shaken"):
        out = shaken_recovery(Combatant(c.id, c.name, sheet, c.position, c.side), per, dice, settings)
        tr = out["roll"]
        rolls += [r for r in (tr.trait, tr.wild) if r]
        log.append(out["log"])
        per["free_only"] = out["free_only"]
        if out["recovered"]:
            changes.setdefault(cid, {})["shaken"] = False
    if sheet.get("stunned"):
        log.append(say("{name} is Stunned: the GM resolves its recovery", name=c.name))


def _next_actor(state: dict, combatants: list[Combatant]) -> tuple[str | None, bool]:
    """Who acts next: one who lost an interrupt, else a paused turn resumes,
    else the next card in the order; (id, resumed)."""
    by_id = _by_id(combatants)
    while state["after"]:
        cid = state["after"].pop(0)
        if _can_act(by_id.get(cid)):
            return cid, False
    while state["resume"]:
        cid = state["resume"].pop()
        if _can_act(by_id.get(cid)):
            return cid, True
    order = state["order"]
    i = state["index"] + 1
    while i < len(order):
        per = state["combatants"].get(order[i], {})
        if _can_act(by_id.get(order[i])) and not per.get("acted") and not per.get("on_hold"):
            state["index"] = i
            return order[i], False
        i += 1
    state["index"] = len(order)
    return None, False


def _holders(state: dict, combatants: list[Combatant]) -> list[str]:
    return [c.id for c in combatants if _can_act(c) and state["combatants"].get(c.id, {}).get("on_hold")]


def _advance(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict,
             rolls: list, log: list, changes: dict, end_round: bool = False) -> dict:
    """Start the next turn; after the last card, characters on Hold may still
    act before the round ends (the round waits with no current actor), then
    a new round is dealt."""
    cid, resumed = (None, False) if end_round else _next_actor(state, combatants)
    if cid is None and not end_round and _holders(state, combatants):
        state["current"] = None
        names = ", ".join(c.name for c in combatants if c.id in _holders(state, combatants))
        log.append(say("Every card has acted; on Hold: {names} (act now, or end the round)", names=names))
        return state
    if cid is None:
        state, r, lg, ch = _new_round(state, combatants, dice, settings, first_round=False)
        rolls += r
        log.append(say("Round {n}", n=state["round"]))
        log += lg
        for k, v in ch.items():
            changes.setdefault(k, {}).update(v)
        cid, resumed = _next_actor(state, combatants)
        if cid is None:
            state["current"] = None
            names = ", ".join(c.name for c in combatants if c.id in _holders(state, combatants)) or say("no one")
            log.append(say("No action card acts this round; on Hold: {names} (act now, or end the round)", names=names))
            return state
    if resumed:
        state["current"] = cid
        log.append(say("{name}'s turn resumes", name=_by_id(combatants)[cid].name))
    else:
        _start_turn(state, cid, combatants, dice, settings, rolls, log, changes)
    return state


def _update(state: dict, rolls: list, log: list, changes: dict) -> TurnUpdate:
    return TurnUpdate(state=state, round=state["round"], order=list(state["order"]), current=state["current"],
                      phase="" if state["current"] else "hold", rolls=rolls, log=log, sheet_changes=changes)


def _copy(state: dict) -> dict:
    return json.loads(json.dumps(state))


def begin_fight(combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """Initiative (Action Cards) and Surprise: a fresh shuffled deck, round 1
    dealt (``Combatant.state["surprise"]``: "attacker" starts on Hold,
    "victim" rolls Notice), and the first turn started."""
    settings = merged_settings(settings)
    rolls: list[RollRecord] = []
    combatants, changes, dealt = _session_bennies(combatants, settings)
    combatants, told = _surprise(combatants)
    state, r, log, ch = _new_round({"round": 0, "combatants": {}}, combatants, dice, settings, first_round=True)
    rolls += r
    for cid, fields in ch.items():
        changes.setdefault(cid, {}).update(fields)
    log[:0] = [say("Round {n}", n=1), *dealt, *told]
    state = _advance(state, combatants, dice, settings, rolls, log, changes)
    return _update(state, rolls, log, changes)


def _session_bennies(combatants: list[Combatant], settings: dict) -> tuple[list[Combatant], dict, list[str]]:
    """Bennies (core rules): a Wild Card starts a session with ``session_bennies`` (3); one whose sheet
    does not count them yet is dealt them as the fight begins (a sheet that counts them keeps its count)."""
    out, changes, log = [], {}, []
    for c in combatants:
        sheet = c.sheet or {}
        if sheet.get("wild_card", True) and sheet.get("bennies") is None:
            n = int(settings["session_bennies"])
            changes[c.id] = {"bennies": n}
            log.append(say_n("{name} is dealt {n} Benny for the session", "{name} is dealt {n} Bennies for the session", n, name=c.name))
            c = Combatant(c.id, c.name, {**sheet, "bennies": n}, c.position, c.side, c.is_player, c.state)
        out.append(c)
    return out, changes, log


def _surprise(combatants: list[Combatant]) -> tuple[list[Combatant], list[str]]:
    """Surprise: the tokens ``start_combat`` marks ``state["surprised"]`` are the victims, who roll
    Notice (a failure: no card, no action in the first round); when anyone is surprised, everyone
    else is an attacker and starts on Hold. (The older ``state["surprise"]`` of "attacker" or
    "victim" is still read.)"""
    if not any((c.state or {}).get("surprised") for c in combatants):
        return combatants, []
    out, victims = [], []
    for c in combatants:
        cs = dict(c.state or {})
        if cs.pop("surprised", False):
            cs["surprise"] = "victim"
            victims.append(c.name)
        else:
            cs.setdefault("surprise", "attacker")
        out.append(Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, cs))
    return out, [say_n("Surprise: {names} is caught unaware and rolls Notice (a failure: no action card and no action "
                       "this round); the attackers start on Hold",
                       "Surprise: {names} are caught unaware and roll Notice (a failure: no action card and no action "
                       "this round); the attackers start on Hold", len(victims), names=", ".join(victims))]


def end_fight(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """The fight is over: nobody has a next turn, so Vulnerable (which lasts to the end of the
    character's next turn, core rules) ends, and the action cards, Hold and the Joker's +2 go with
    the deck. Wounds, Shaken, Fatigue and Bennies stay."""
    changes, log = {}, []
    for c in combatants:
        if (c.sheet or {}).get("vulnerable"):
            changes[c.id] = {"vulnerable": False}
            log.append(say("{name} is no longer Vulnerable: the fight is over", name=c.name))
    return TurnUpdate(state={}, round=0, log=log, sheet_changes=changes)


def next_turn(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """End the current turn and start the next: a Shaken character rolls
    Spirit at the start of its turn; after the last card, a new round is
    dealt (reshuffled after a Joker)."""
    settings = merged_settings(settings)
    state = _copy(state)
    rolls: list[RollRecord] = []
    log: list[str] = []
    changes: dict[str, dict] = {}
    cur = state.get("current")
    if cur is not None:
        per = state["combatants"].setdefault(cur, _fresh_state())
        per["acted"] = True
        per.update(_TURN_FRESH)
        _vulnerable_turn_ends(state, _by_id(combatants).get(cur), log, changes)
    # no current actor: the round was waiting on characters on Hold, who let it end
    state = _advance(state, combatants, dice, settings, rolls, log, changes, end_round=cur is None)
    return _update(state, rolls, log, changes)


def _vulnerable_turn_ends(state: dict, c: Combatant | None, log: list, changes: dict) -> None:
    """Vulnerable lasts to the end of the character's next turn (core rules, reading; #58): ``after_attack``
    counts in ``state["vulnerable"]`` the ends of its turns it lasts through (2 when it became Vulnerable on its
    own turn: this one and the next; 1 off its turn); at the last, it is no longer Vulnerable."""
    books = state.get("vulnerable") or {}
    if c is None or c.id not in books:
        return
    books[c.id] = int(books[c.id]) - 1
    if books[c.id] > 0:
        return
    del books[c.id]
    if (c.sheet or {}).get("vulnerable"):
        changes.setdefault(c.id, {})["vulnerable"] = False
        log.append(say("{name} is no longer Vulnerable: its next turn is over", name=c.name))


def _turn_modifiers(per: dict, sheet: dict) -> list[Modifier]:
    """The modifiers every trait roll of this turn carries: multi-action,
    running, the Joker, wounds and Fatigue."""
    mods = []
    n = int(per.get("actions", 1) or 1)
    if n > 1:
        mods.append(Modifier(f"Multi-action ({n} actions)", multi_action_penalty(n), "Actions Per Turn"))
    if per.get("ran"):
        mods.append(Modifier(say("Running"), RUNNING_PENALTY, CORE))
    if per.get("joker"):
        mods.append(Modifier(say("Joker"), JOKER_BONUS, "Initiative (Action Cards)"))
    return mods + condition_modifiers(sheet)


def _why_not(state: dict, actor: Combatant) -> str:
    """Why this actor can do nothing at all now, or ""."""
    sheet = actor.sheet or {}
    per = state.get("combatants", {}).get(actor.id, {})
    if sheet.get("incapacitated"):
        return say("Incapacitated")
    if sheet.get("stunned"):
        return say("Stunned: no actions until it recovers (the GM resolves it)")
    if per.get("surprised"):
        return say("Surprised: failed Notice, no action this round")
    return ""


def _spent(per: dict) -> str:
    """Why no action is left this turn, or "" (Actions Per Turn: the declared actions are taken)."""
    n, used = int(per.get("actions", 1) or 1), int(per.get("used", 0) or 0)
    if used < n:
        return ""
    return (say("the 1 action declared this turn is taken (declare more before the first)") if n == 1 else
            say("the {n} actions declared this turn are taken", n=n))


def _attack_options(per: dict, sheet: dict, why: str) -> list[ActionOption]:
    mods = _turn_modifiers(per, sheet)
    penalty = int(sum(m.value for m in mods))
    n = int(per.get("actions", 1) or 1)
    why = why or _spent(per)
    weapons = [(None, weapon_stats({"damage": "Str", "natural": True}))]
    weapons += [(name, weapon_stats(w)) for name, w in (sheet.get("weapons") or {}).items()]
    out = []
    for name, w in weapons:
        if not w["ready"]:
            continue
        skill = "fighting" if not w["ranged"] else "athletics" if w["thrown"] else "shooting"
        out.append(ActionOption(
            "attack", say("Attack: {weapon} ({skill})", weapon=name or say("Unarmed"), skill=SKILL_WORDS[skill]), "attack",
            cost=say("1 action of {n} (each {penalty})", n=n, penalty=f"{multi_action_penalty(n):+d}") if n > 1
            else say("1 action"),
            available=not why, reason=why, usual=True,
            data={"weapon": name, "skill": skill, "rof": int(w["rof"]), "actions": n,
                  "used": int(per.get("used", 0) or 0), "penalty": penalty,
                  "modifiers": [m.to_dict() for m in mods]}))
    return out


def actions(state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
    """What ``actor`` may do now (*Savage Worlds Combat System Reference*,
    "Actions Per Turn", "Hold", "Prone Targets"): on its turn, move (Pace;
    not an action), run, stand or fall prone, attack with each ready weapon
    (with this turn's multi-action, running and Joker modifiers), declare
    2 or 3 actions, go on Hold, end the turn; off its turn, a character on
    Hold may interrupt; a Shaken one may spend a Benny at any time."""
    settings = merged_settings(settings)
    sheet = actor.sheet or {}
    per = state.get("combatants", {}).get(actor.id, {})
    why = _why_not(state, actor)
    current = state.get("current")
    out: list[ActionOption] = []
    if sheet.get("shaken"):
        has = int(sheet.get("bennies", 0) or 0) > 0
        out.append(ActionOption("benny_unshake", say("Spend a Benny to end Shaken"), "other", say("1 Benny"),
                                available=has and not sheet.get("incapacitated"),
                                reason="" if has else say("no Bennies left")))
    if current != actor.id:
        if per.get("on_hold"):
            ok = current is not None and not why
            out.append(ActionOption("interrupt", say("Act from Hold (interrupt: opposed Athletics)"), "turn",
                                    say("the held turn"), available=ok,
                                    reason=why or ("" if ok else say("no one is acting to interrupt: act now")),
                                    data={"against": current, "joker": bool(per.get("joker")), "from_hold": True}))
            ok = current is None and not why
            out.append(ActionOption("act_now", say("Act from Hold now"), "turn", say("the held turn"), available=ok,
                                    reason=why or ("" if ok else say("someone is acting: interrupt instead")),
                                    data={"from_hold": True}))
        return out
    d = derived_values(sheet)
    pace, run_die = d["pace"], d["run_die"]
    allowance = movement_left(state, actor, settings)
    free_only = say("Shaken: free actions only this turn") if (sheet.get("shaken") or per.get("free_only")) else ""
    no_more = "" if allowance > 0 else say("no movement left this turn") if per.get("ran") else say(
        "no movement left this turn (running adds {die})", die=run_die)
    out.append(ActionOption("move", say("Move (Pace {pace}\")", pace=pace), "move", say("free (not an action)"),
                            available=not (why or no_more), reason=why or no_more, usual=True,
                            data={"allowance": allowance, "pace": pace,
                                              "moved": float(per.get("moved", 0) or 0),
                                              "difficult_terrain": say("costs double")}))
    out.append(ActionOption("run", say("Run (+{die} to Pace)", die=run_die), "move",
                            say("free; {penalty} to this turn's actions", penalty=RUNNING_PENALTY),
                            available=not why and not per.get("ran"), usual=True,
                            reason=why or (say("already ran this turn") if per.get("ran") else ""),
                            data={"die": run_die, "pace": pace, "most_without_ace": pace + parse_die(run_die).sides,
                                  "penalty": RUNNING_PENALTY}))
    if sheet.get("prone"):
        out.append(ActionOption("stand", say("Stand up"), "move", say("{cost}\" of movement", cost=STAND_COST),
                                available=not why and not per.get("stood"), reason=why))
    else:
        out.append(ActionOption("fall_prone", say("Fall prone"), "other", say("free"), available=not why, reason=why))
    out += _attack_options(per, sheet, why or free_only)
    n, used = int(per.get("actions", 1) or 1), int(per.get("used", 0) or 0)
    spent = _spent(per)
    out.append(ActionOption("other_action", say("Another action (Aim, a Test, a power...: the GM resolves it)"), "other",
                            say("1 action"), available=not (why or free_only or spent), reason=why or free_only or spent,
                            data={"actions": n, "used": used}))
    fixed = say_n("already took {n} action: the count is set before the first",
                  "already took {n} actions: the count is set before the first", used) if used else ""
    for k in range(1, int(settings["max_actions"]) + 1):
        if k == n:
            continue
        pen = multi_action_penalty(k)
        label = say("Take {n} actions this turn ({penalty} to each)", n=k, penalty=pen) if k > 1 else say(
            "Take a single action (no penalty)")
        reason = why or (free_only if k > 1 else "") or fixed
        out.append(ActionOption("multi_action", label, "turn", available=not reason, reason=reason,
                                data={"actions": k, "penalty": pen}))
    fresh = n == 1 and not per.get("ran") and not used and not per.get("moved")
    out.append(ActionOption("hold", say("Go on Hold"), "turn", say("the turn"), available=not why and fresh, usual=True,
                            reason=why or ("" if fresh else say("Hold is taken instead of acting"))))
    out.append(ActionOption("end_turn", say("End the turn"), "turn"))
    return out


def _interrupt(state: dict, actor: Combatant, combatants: list[Combatant], dice: DiceSource, settings: dict,
               options: dict, rolls: list, log: list, changes: dict) -> dict:
    """Hold: a character on Hold interrupts the current actor with an opposed
    Athletics roll; the winner acts first, a loser acts right after. A Joker
    acts when it likes (no roll); so does a holder the current actor lets go
    first (``options["unopposed"]``: the GM's call)."""
    per = state["combatants"][actor.id]
    cur = _by_id(combatants).get(state["current"])
    if cur is None:
        raise RuleError(say("no one is acting to interrupt"))
    if per.get("joker") or options.get("unopposed"):
        first = "holder"
        log.append(say("{name} acts from Hold (Joker: acts when it likes)", name=actor.name) if per.get("joker")
                   else say("{name} acts from Hold", name=actor.name))
    else:
        a_die, a_mods = skill_die(actor.sheet or {}, "athletics")
        b_die, b_mods = skill_die(cur.sheet or {}, "athletics")
        b_per = state["combatants"].get(cur.id, {})
        res = opposed_roll(
            a_die, b_die, dice, a_wild=bool((actor.sheet or {}).get("wild_card", True)),
            b_wild=bool((cur.sheet or {}).get("wild_card", True)),
            a_modifiers=a_mods + _joker_and_conditions(per, actor.sheet or {}),
            b_modifiers=b_mods + _joker_and_conditions(b_per, cur.sheet or {}), a_roller=actor.id, b_roller=cur.id)
        rolls += [r for r in res["rolls"] if r is not None]
        first = {"a": "holder", "b": "actor", "tie": "holder"}[res["winner"]]
        log.append(say("{name} tries to interrupt {other}: Athletics {a} vs {b} (a tie: both act at once, the holder's "
                       "turn first)", name=actor.name, other=cur.name, a=res["a"]["total"], b=res["b"]["total"])
                   if res["winner"] == "tie" else
                   say("{name} tries to interrupt {other}: Athletics {a} vs {b}", name=actor.name, other=cur.name,
                       a=res["a"]["total"], b=res["b"]["total"]))
    if first == "holder":
        state["resume"].append(cur.id)
        _start_turn(state, actor.id, combatants, dice, settings, rolls, log, changes)
    else:
        per["on_hold"] = False
        state["after"].insert(0, actor.id)
        log.append(say("{name} loses the interrupt and acts right after {other}", name=actor.name, other=cur.name))
    return state


def _joker_and_conditions(per: dict, sheet: dict) -> list[Modifier]:
    mods = [Modifier(say("Joker"), JOKER_BONUS, "Initiative (Action Cards)")] if per.get("joker") else []
    return mods + condition_modifiers(sheet)


def _declare_actions(state: dict, actor: Combatant, k: int, listed: list[ActionOption], settings: dict) -> TurnUpdate:
    """Actions Per Turn: the number of actions this turn sets the penalty on each."""
    if state.get("current") != actor.id:
        raise RuleError(say("it is not {name}'s turn", name=actor.name))
    per = state["combatants"].setdefault(actor.id, _fresh_state())
    offered = {o.data["actions"]: o for o in listed if o.key == "multi_action"}
    if k != int(per.get("actions", 1) or 1):
        if k not in offered:
            raise RuleError(say("a turn has 1 to {most} actions, not {n}", most=settings["max_actions"], n=k))
        if not offered[k].available:
            raise RuleError(offered[k].reason)
    per["actions"] = k
    pen = multi_action_penalty(k)
    log = [say("{name} takes {n} actions this turn: {penalty} to each", name=actor.name, n=k, penalty=pen) if pen else
           say_n("{name} takes {n} action this turn", "{name} takes {n} actions this turn", k, name=actor.name)]
    return _update(state, [], log, {})


def act(state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
        settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
    """The turn actions that are neither a move nor an attack (*Savage Worlds
    Combat System Reference*, "Hold", "Actions Per Turn", "Prone Targets"):
    ``hold``, ``interrupt`` (from Hold, while someone acts), ``act_now``
    (from Hold, while no one acts), ``multi_action`` (``options["actions"]``: 1 to
    ``max_actions``), ``run`` (rolls the running die), ``stand``,
    ``fall_prone``, ``benny_unshake``, ``other_action`` (an action the GM resolves, counted
    against the declared ones), ``end_turn``. Others raise
    RuleNotImplemented; what the rules forbid raises RuleError."""
    settings = merged_settings(settings)
    options = options or {}
    state = _copy(state)
    rolls: list[RollRecord] = []
    log: list[str] = []
    changes: dict[str, dict] = {}
    known = {"hold", "interrupt", "act_now", "multi_action", "run", "stand", "fall_prone", "benny_unshake", "end_turn",
             "other_action"}
    if action not in known:
        raise RuleNotImplemented(say("Savage Worlds: {action} is not automated; the GM adjudicates it", action=repr(action)))
    if action == "end_turn":
        if state.get("current") != actor.id:
            raise RuleError(say("it is not {name}'s turn", name=actor.name))
        return next_turn(state, combatants, dice, settings)
    listed = actions(state, actor, settings)
    if action == "multi_action":
        return _declare_actions(state, actor, int(options.get("actions", 0) or 0), listed, settings)
    opt = {o.key: o for o in listed}.get(action)
    if opt is None:
        raise RuleError(say("{name} cannot {action} now", name=actor.name, action=action.replace("_", " "))
                        if state.get("current") == actor.id else
                        say("{name} cannot {action} now: it is not its turn", name=actor.name, action=action.replace("_", " ")))
    if not opt.available:
        raise RuleError(opt.reason or say("{name} cannot {action} now", name=actor.name, action=action.replace("_", " ")))
    per = state["combatants"].setdefault(actor.id, _fresh_state())
    sheet = actor.sheet or {}
    if action == "hold":
        per["on_hold"], per["surprise_hold"] = True, False
        log.append(say("{name} goes on Hold", name=actor.name))
        state = _advance(state, combatants, dice, settings, rolls, log, changes)
    elif action == "interrupt":
        state = _interrupt(state, actor, combatants, dice, settings, options, rolls, log, changes)
    elif action == "act_now":
        log.append(say("{name} acts from Hold", name=actor.name))
        _start_turn(state, actor.id, combatants, dice, settings, rolls, log, changes)
    elif action == "run":
        d = derived_values(sheet)
        r = dice.roll(d["run_die"], say("running die"), roller=actor.id, needs=running_needs(d["run_die"], d["pace"]))
        rolls.append(r)
        per["ran"] = True
        per["run_allowance"] = d["pace"] + r.total
        log.append(say("{name} runs: Pace {pace} + {roll} = {allowance}\"; {penalty} to this turn's actions", name=actor.name,
                       pace=d["pace"], roll=r.total, allowance=per["run_allowance"], penalty=RUNNING_PENALTY))
    elif action == "stand":
        per["stood"] = True
        changes[actor.id] = {"prone": False}
        log.append(say("{name} stands up ({cost}\" of movement)", name=actor.name, cost=STAND_COST))
    elif action == "fall_prone":
        changes[actor.id] = {"prone": True}
        log.append(say("{name} drops prone", name=actor.name))
    elif action == "other_action":
        per["used"] = int(per.get("used", 0) or 0) + 1
        log.append(say("{name} takes an action ({used} of {n} this turn)", name=actor.name, used=per["used"], n=per.get("actions", 1)))
    elif action == "benny_unshake":
        changes[actor.id] = {"shaken": False, "bennies": int(sheet.get("bennies", 0) or 0) - 1}
        per["free_only"] = False
        log.append(say("{name} spends a Benny and is no longer Shaken", name=actor.name))
    return _update(state, rolls, log, changes)


# ---------------------------------------------------------------- the books of attacks and moves


def after_attack(state: dict, result: AttackResult, settings: dict | None = None) -> dict:
    """Actions Per Turn: an attack on the attacker's own turn is one of the actions declared for
    it (``used``), so one more than declared is refused. A free attack (``options["free_attack"]``,
    Withdrawing from Melee) or an attack off the attacker's turn (a GM ruling) counts none."""
    state = _copy(state)
    aid = result.details.get("attacker")
    if aid and aid == state.get("current") and not result.details.get("free_attack"):
        per = state.setdefault("combatants", {}).setdefault(aid, _fresh_state())
        per["used"] = int(per.get("used", 0) or 0) + 1
    if aid and any(e.kind == "vulnerable" and e.target == aid for e in result.effects):
        # Vulnerable to the end of its next turn (a Wild Attack, a shot out of melee): the ends of turns it lasts
        state.setdefault("vulnerable", {})[aid] = 2 if aid == state.get("current") else 1
    return state


def movement_left(state: dict, mover: Combatant, settings: dict | None = None) -> float:
    """Inches the current actor may still move this turn: Pace, or Pace plus the running die
    rolled once when it ran, less 2" if it stood up and what it moved already (difficult terrain
    is in the cost of each move). Anyone else, or one who cannot act, has 0."""
    sheet = mover.sheet or {}
    pace = derived_values(sheet)["pace"]
    if "current" not in state:  # no fight: a plain Pace
        return float(pace)
    if state.get("current") != mover.id or _why_not(state, mover):
        return 0.0
    per = state.get("combatants", {}).get(mover.id, {})
    base = per["run_allowance"] if per.get("ran") and per.get("run_allowance") is not None else pace
    left = base - (STAND_COST if per.get("stood") else 0) - float(per.get("moved", 0) or 0)
    return float(max(0.0, left))


def move(state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant], board,
         dice: DiceSource, settings: dict | None = None) -> MoveResult:
    """A move on the mover's turn (movement is not an action) within what is left of its Pace
    (or its run); a prone token stands up first (2", "Prone Targets"). Withdrawing from Melee:
    every adjacent foe, not Shaken nor Stunned, that the move leaves gets a free attack
    (``provokes``)."""
    state = _copy(state)
    sheet = mover.sheet or {}
    if state.get("current") != mover.id:
        raise RuleError(say("it is not {name}'s turn", name=mover.name))
    why = _why_not(state, mover)
    if why:
        raise RuleError(say("{name} cannot move: {why}", name=mover.name, why=why))
    if sheet.get("prone"):
        raise RuleError(say("{name} is prone: stand up first ({cost}\" of movement)", name=mover.name, cost=STAND_COST))
    cost = float(cost)
    if cost < 0:
        raise RuleError(say("a move cannot cost less than nothing"))
    left = movement_left(state, mover, settings)
    per = state.setdefault("combatants", {}).setdefault(mover.id, _fresh_state())
    if cost > left + 1e-9:
        raise RuleError(say("{name} has {left}\" of movement left this turn and the path costs {cost}\"", name=mover.name,
                            left=f"{left:g}", cost=f"{cost:g}") if per.get("ran") else
                        say("{name} has {left}\" of movement left this turn and the path costs {cost}\"; running adds {die}",
                            name=mover.name, left=f"{left:g}", cost=f"{cost:g}", die=derived_values(sheet)["run_die"]))
    per["moved"] = float(per.get("moved", 0) or 0) + cost
    start = tuple(path[0]) if path else mover.position
    end = tuple(path[-1]) if path else mover.position
    at_start = Combatant(mover.id, mover.name, sheet, start, mover.side, mover.is_player, per)
    others = [c for c in combatants if c.id != mover.id]
    provokes = [cid for cid in withdraw_attackers(at_start, others)
                if not adjacent(next(c for c in others if c.id == cid).position, end)]
    now = left - cost
    log = [say("{name} moves {cost}\" ({left}\" left this turn)", name=mover.name, cost=f"{cost:g}", left=f"{now:g}")]
    if provokes:
        names = ", ".join(c.name for c in others if c.id in provokes)
        log.append(say("{name} withdraws from melee: a free attack for {names}", name=mover.name, names=names))
    return MoveResult(state=state, cost=cost, left=max(0.0, now), provokes=provokes, log=log)
