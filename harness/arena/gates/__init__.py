"""What a CI job asks of a run: its own numbers within bounds (`--assert`), no point slower than
before (`arena compare --fail-on`), and the answer as JUnit XML that CI systems display."""
