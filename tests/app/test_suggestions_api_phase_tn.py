"""The GM's suggestions for a phase/TN foe over the JSON API (#60): at the foe's time to declare, every plan's steps
(its declaration or its Move), sent as commands with the GM's key, are accepted; players and the table screen get
403 and never a plan nor the foe's tactic (the 3d6 and Savage Worlds test, run on a phase/TN fight)."""

from __future__ import annotations

import pytest

from tests.app.test_suggestions_api import (
    test_every_plans_steps_are_accepted_and_only_the_gm_gets_suggestions as every_plan_accepted_gm_only,
)


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_every_phase_tn_plans_steps_are_accepted_and_only_the_gm_gets_suggestions(app, client):
    every_plan_accepted_gm_only(app, client, "phase_tn")
