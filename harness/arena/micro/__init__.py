"""The micro-benchmarks' kind of measurement: the benches of spec/micro.toml on the programs of
micro/ (`arena micro`)."""
