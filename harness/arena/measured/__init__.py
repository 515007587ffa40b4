"""What a measurement is (measurement.py), where every run and measurement is kept (store.py:
results/arena.sqlite), and the statistics over repetitions (stats.py)."""
