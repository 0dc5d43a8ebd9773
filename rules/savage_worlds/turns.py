"""Turns: the action deck (dealing, Edges that change the deal, order Ace to
2 with suit ties, Jokers), Surprise, Hold and interrupts, the actions of a
turn and their multi-action penalty.

Sources: *Savage Worlds Combat System Reference*, "Initiative (Action
Cards)", "Actions Per Turn", "Surprise" and "Hold".
"""

from __future__ import annotations

from ..dice import DiceSource, RollRecord
from ..system import Combatant, Effect, Modifier, RuleError
from .checks import trait_roll
from .data import CORE, JOKERS, MULTI_ACTION_STEP, RANKS, SUITS, merged_settings
from .health import condition_modifiers


def multi_action_penalty(actions: int) -> int:
    """Actions Per Turn: -2 per action beyond the first, to every action that turn."""
    if actions < 1:
        raise RuleError("a turn has at least one action")
    return MULTI_ACTION_STEP * (actions - 1)


def _card_key(card: str) -> tuple[int, int]:
    card = str(card).upper()
    if card in JOKERS:
        return (-1, JOKERS.index(card))
    rank, suit = card[:-1], card[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise RuleError(f"not an action card: {card!r} (write AS, 10H, 2C, RJ or BJ)")
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


def shuffle(cards: list[str], dice: DiceSource) -> tuple[list[str], list[RollRecord]]:
    """Fisher-Yates through the dice source, so a seed replays and a test scripts it."""
    out = list(cards)
    rolls = []
    for i in range(len(out) - 1, 0, -1):
        r = dice.roll(f"d{i + 1}", "shuffle the action deck")
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
        raise RuleError("an action deck needs a 'draw' list") from None
    every = d["draw"] + d["discard"] + d["dealt"]
    for c in every:
        _card_key(c)
    if sorted(every) != sorted(new_deck()):
        raise RuleError("the action deck does not hold the 54 cards once each")
    return d


def draw_card(deck: dict, dice: DiceSource) -> tuple[str, dict]:
    """Deal one card; an empty draw pile is refilled from the shuffled discards."""
    d = dict(deck, draw=list(deck["draw"]), discard=list(deck["discard"]), dealt=list(deck["dealt"]))
    if not d["draw"]:
        if not d["discard"]:
            raise RuleError("every card of the action deck is out")
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
            entry["reason"] = "Incapacitated"
            entries.append(entry)
            continue
        surprise = state.get("surprise") if first_round else None
        if surprise == "attacker" or state.get("on_hold"):
            entry["on_hold"] = True
            entries.append(entry)
            continue
        if surprise == "victim":
            notice = sheet.get("skills", {}).get("notice")
            die, mods = (notice, []) if notice else ("d4", [Modifier("Unskilled", -2, CORE)])
            tr = trait_roll(die, dice, wild_card=wild, modifiers=mods + condition_modifiers(sheet), name="Notice")
            rolls += [r for r in (tr.trait, tr.wild) if r]
            entry["notice"] = tr.to_dict()
            if not tr.success:
                entry["acts"] = False
                entry["reason"] = "Surprised (failed Notice)"
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
                    effects.append(Effect("benny", c.id, {"amount": 1, "reason": f"{e['name']} drew a Joker"}))
    return {"order": order, "not_acting": waiting, "deck": deck, "effects": [x.to_dict() for x in effects],
            "rolls": [r.to_dict() for r in rolls]}

