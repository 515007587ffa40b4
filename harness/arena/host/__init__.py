"""The processes Arena runs on this machine: started, pinned to their cores and sampled (process.py,
cores.py), and the PostgreSQL behind /record (database.py)."""
