"""Whether an implementation keeps the contract of spec/ and stands hostile input: the conformance
suite (verify.py, with records.py for /record, expect.py and client.py beneath them, reference.py
for the contract's reference data), the outside fuzzer (fuzz.py), the abuse checks (abuse.py) and
the overload run (overload.py). Each check reports every problem it finds, as result.py's pass,
warn or fail."""
