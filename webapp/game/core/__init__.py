"""The game's model and what every feature is made of: the model, a feature's declaration, the text the table
accepts, refusals in words, the rules' words in a reader's language. Imports nothing else of the game.
"""
