"""Locust as a second load engine: engine.py behind the engine interface, locustfile.py run by Locust itself."""
