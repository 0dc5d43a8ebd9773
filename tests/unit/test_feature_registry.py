"""The features' list (webapp/game/features.py) against every registry a command or an event needs elsewhere.

A feature declares its commands and events once, in its ``FEATURE``; what they need besides is kept where it is
read, and checked here: each event's screen parts (``webapp.live.screens.parts.BY_EVENT``, made from each part's
``events``: an event with none redraws every screen whole), each command's row in the access matrix
(``access.COMMANDS``: a command with none is refused to everyone), its audience rule (``audience.COMMANDS``) and
its undo rule (``undo.COMMANDS``). A new feature that forgets one fails here, with the file to add it to.
"""

from __future__ import annotations

import pytest

from webapp.game import access, table
from webapp.game.views import audience
from webapp.game.tableside import safety, undo
from webapp.game.core.feature import type_of
from webapp.game.features import FEATURES
from webapp.live.screens import parts

COMMANDS = [type_of(model) for feature in FEATURES for model in feature.commands]
EVENTS = [kind for feature in FEATURES for kind in feature.events]
#: command type -> the feature that declares it
OWNER = {type_of(model): feature for feature in FEATURES for model in feature.commands}


def test_each_command_and_each_event_is_declared_by_one_feature():
    assert len(COMMANDS) == len(set(COMMANDS)), [k for k in COMMANDS if COMMANDS.count(k) > 1]
    assert len(EVENTS) == len(set(EVENTS)), [k for k in EVENTS if EVENTS.count(k) > 1]


@pytest.mark.parametrize("kind", EVENTS)
def test_every_event_has_its_screen_parts(kind):
    assert kind in parts.BY_EVENT, (
        f"event {kind!r} has no screen parts: add it to the events of the parts it changes in webapp/live/screens/parts.py "
        "(without them every screen is redrawn whole)")
    assert parts.BY_EVENT[kind] <= parts.EVERYTHING, f"{kind!r}: parts no screen has"


def test_the_screen_parts_name_only_events_a_feature_declares():
    assert set(parts.BY_EVENT) - set(EVENTS) == set()


@pytest.mark.parametrize("kind", COMMANDS)
def test_every_command_has_a_row_in_the_access_matrix(kind):
    assert kind in access.COMMANDS, f"command {kind!r} has no row in the access matrix (webapp/game/access.py)"


@pytest.mark.parametrize("kind", COMMANDS)
def test_every_command_has_an_audience_rule(kind):
    assert audience.COMMANDS.get(kind) in (audience.TABLE, audience.VIEW, audience.ANONYMOUS), (
        f"command {kind!r} has no audience rule (COMMANDS in webapp/game/views/audience.py)")


@pytest.mark.parametrize("kind", COMMANDS)
def test_every_command_has_an_undo_rule(kind):
    assert undo.COMMANDS.get(kind) in (undo.BACK, undo.KEPT, undo.LINE, undo.NOTHING), (
        f"command {kind!r} has no undo rule (COMMANDS in webapp/game/tableside/undo.py)")


def test_no_rule_waits_for_a_command_no_feature_declares():
    declared = set(COMMANDS)
    assert set(access.COMMANDS) - declared - {"drag_preview"} - access.AWAITED == set()  # drag_preview: a socket event
    assert set(audience.COMMANDS) - declared == set()
    assert set(undo.COMMANDS) - declared == set()


def test_the_audience_rules_agree_with_what_the_features_declare():
    decided = {type_of(model) for feature in FEATURES for model in feature.decide}
    for kind in COMMANDS:
        if kind in decided:  # the table decides it: it records events
            assert audience.COMMANDS[kind] != audience.VIEW, kind
        if audience.COMMANDS[kind] == audience.VIEW:  # nothing recorded, nothing to take back
            assert undo.COMMANDS[kind] == undo.NOTHING, kind
    assert {k for k, rule in audience.COMMANDS.items() if rule == audience.ANONYMOUS} == safety.ANONYMOUS


def test_the_undo_rules_agree_with_the_features_events():
    """A command undo takes back belongs to a feature with events undo takes back; one it keeps, to a feature
    with events undo passes over; one undo stops at, to a feature with a map switch."""
    for kind in COMMANDS:
        events = set(OWNER[kind].events)
        rule = undo.COMMANDS[kind]
        if rule == undo.BACK:
            assert events - undo.NOT_UNDOABLE - undo.MAP_SWITCH, kind
        elif rule == undo.KEPT:
            assert events & undo.NOT_UNDOABLE, kind
        elif rule == undo.LINE:
            assert events & undo.MAP_SWITCH, kind


def test_what_a_feature_follows_is_declared_by_another():
    for feature in FEATURES:
        for step in feature.follows:
            assert set(step.commands) <= set(COMMANDS) and set(step.events) <= set(EVENTS), feature.name
            assert (step.decided is not None) == bool(step.commands), feature.name
            assert (step.evolved is not None) == bool(step.events), feature.name


def test_the_table_dispatches_what_the_list_declares():
    assert table.COMMAND_TYPES == tuple(type_of(m) for feature in FEATURES if not feature.apart for m in feature.commands)
    assert set(table._EVOLVE) == set(EVENTS)
    assert all(feature.evolve is not None for feature in FEATURES if feature.events)
