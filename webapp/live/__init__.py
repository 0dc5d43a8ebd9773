"""The live side: the hub (load a game, run a command, tell every screen), rendering per audience,
the Socket.IO handlers and their lanes, direct websocket writes, and the Redis scale-out."""
