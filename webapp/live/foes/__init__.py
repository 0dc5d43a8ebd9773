"""The foes on the live side: their plans reckoned off the loop and fairly between tables (suggesting,
fairness), and the runner that plays them when the GM turns Play the foes on (foeplay).
"""
