"""The foes on the live side: their plans reckoned off the loop and fairly between tables (suggesting,
fairness), and the runner that plays them when the GM turns Play the foes on (foeplay).
"""

from .foeplay import FoePlayers

#: the runners a feature starts after a commit (``Feature.starts``), by name: each made with the hub, told of every
#: commit of this process (``started(game_id, events)``)
RUNNERS = {"foe_players": FoePlayers}
