"""The run frame that the kinds share: what a measurement runs on (a server start kept for the points
of a repetition, its database and settings), above the shared parts and below the kinds."""
