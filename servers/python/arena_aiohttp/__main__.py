"""python -m arena_aiohttp: the Arena REST server on aiohttp."""

from arena_aiohttp.server import main

raise SystemExit(main())
