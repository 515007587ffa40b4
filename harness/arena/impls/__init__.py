"""The implementations and what makes them runnable: their manifests and the repository's folders
(catalog.py), the toolchains they need (toolchain.py), their builds (build.py), and both in one
step with a line for the user (prepare.py)."""
