"""``poolkit serve``: the judging screen (and the lead's dashboard) in a browser.

``server`` holds the routes; ``cookies`` and ``throttle`` the login's rules; ``launch``
what a session runs and with which environment; ``bridge`` the screen process's framed
pipes; ``sessions`` who holds which screen; ``pages`` the HTML. Accounts are
``poolkit.app.users``. Needs the ``serve`` extra (aiohttp, textual-serve's browser script).
"""
