"""The table itself, pure: no Flask, Socket.IO, Werkzeug or SQLite. Rooms by role, bottom first
(docs/DESIGN.md "Layout"):

- ``core``: the model (Game, Token, Player, Character, Actor, Event, Rejected), a feature's declaration, the
  text the table accepts, refusals and the rules' words in a reader's language; it imports nothing else of the
  game;
- ``bridge``: read-only, from a game to its rule system and board (the fighters as the rules see them, fog,
  zone layouts, tokens in words, big-map geometry); on core alone;
- ``fight``, ``board``, ``tableside``: the features, each module ending in its ``FEATURE``; on the bridge and
  core, crossing freely among themselves;
- ``views`` (what each audience may see, the recap, the replay...) and ``planning`` (the foes' plans, Play the
  foes): on the features, the bridge and core; no feature imports them, and neither imports the other;
- on top: ``table`` (parse, authorize, decide, evolve, replay), built from ``features`` (the one list), and
  ``access`` (who may do what). No room imports the table or the list.
"""
