"""The board's features: tokens and doors, the map editor and fog controls, maps and map files, area templates,
lighting, hand-outs and token pictures.
"""
