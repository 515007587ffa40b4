"""Arena's Python implementation of the REST workload contract (spec/README.md): aiohttp, asyncpg, bcrypt."""
