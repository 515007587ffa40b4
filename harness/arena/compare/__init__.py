"""`arena compare`: two runs, or two implementations of one run, point by point, with a verdict."""
