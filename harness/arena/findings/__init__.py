"""The seed studies' findings and a verdict on each from stored measurements (spec/findings.md)."""
