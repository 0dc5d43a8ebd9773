"""The foes' planning: the best plans for a foe's turn with their exact odds (suggestions, on squares, hexes
and zones, closing in), the copies they are played on, and Play the foes. Imports the features, the bridge and
core; no feature imports it, and it imports nothing of views.
"""
