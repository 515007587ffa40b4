"""Arena's harness: builds, verifies, loads and reports the implementations of servers/."""
