"""The table's features: seats, keys and the GM password, the X-card, the touch table, what the table screen
shows, and Undo.
"""
