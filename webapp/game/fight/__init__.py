"""The fight's features: turns and rolls (combat), attacks with their aim, defenses and result card, free
attacks, Soak and Benny rerolls, the table's own dice, characters and their sheets, and what a fight waits for.
"""
