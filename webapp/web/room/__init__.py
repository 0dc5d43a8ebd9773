"""Room mode (#38, docs/ROOM.md): the room's blueprint and its routes (room), the organiser's page (roompage),
the room's words (roomwords).
"""
