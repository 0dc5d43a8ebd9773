"""The read-only bridge from a game to its rule system and its board: the fighters as the rules see them
(fighting), what each audience sees (fog), zone layouts, tokens in words, geometry run off the loop.
Features, views and planning read it; it changes no game and imports no feature.
"""
