"""The foes' planning: the best plans for a foe's turn with their exact odds (suggestions, on squares, hexes
and zones, closing in), the copies they are played on, and Play the foes. Imports features and the bridge; no
feature imports it.
"""
