"""The table itself, pure: no Flask, Socket.IO, Werkzeug or SQLite.

``model`` at the bottom (Game, Token, Player, Character, Actor, Event,
Rejected); the feature modules above it (moves in ``table``, combat, attacks,
characters, maps and mapdata, editor, fog, templates, undo, keys, access,
text, zonelayout, uvtt), each importing the model and never the command
table; ``audience`` (what each audience may see) above those; ``table`` (parse,
authorize, decide, evolve, replay) on top.
"""
