"""What the screens are sent: the update drawn per audience and language (fanout, render), the screen parts
each declared once (parts) and what their templates read (context), the log as shown, the map's SVG (drawing,
token_svg), the table screen's box, the Jinja environment and the reader's language.
"""
