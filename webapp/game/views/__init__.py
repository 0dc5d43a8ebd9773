"""Views of a game, read from its state and log: what each audience may see (audience), a player's board as a
list, the recap, the replay, luck told. They import features and the bridge; no feature imports them.
"""
