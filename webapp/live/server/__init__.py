"""How the server serves: gevent's WSGI server (serving), Socket.IO connections and their lanes, the
transport's limits (keyless) and a client's (throttle), several processes over Redis (shared), the cycle collector
run when idle, the native threads of big-map geometry.
"""
