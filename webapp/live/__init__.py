"""The live side: on top, the hub (load a game, run a command, tell every screen) and the command's path
(games in memory, committing, relays, presence, devices, the GM's access, the replay, uploads, room mode's tables,
a seat's allowance); ``screens`` (what the screens are sent: fan-out and rendering per audience and language),
``server`` (gevent's serving, the Socket.IO handlers and their lanes, the limits, the Redis scale-out) and
``foes`` (the foes' plans off the loop, the runner that plays them). docs/DESIGN.md "Layout" names each module."""
