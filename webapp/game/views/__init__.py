"""Views of a game, read from its state and log: what each audience may see (audience), a player's board as a
list, the recap, the replay, luck told. They import the features, the bridge and core; no feature imports them,
and they import nothing of planning.
"""
