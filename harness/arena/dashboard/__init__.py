"""`arena serve`: the dashboard (app.py), its pages (pages.py) and the console's servers (servers.py)."""
