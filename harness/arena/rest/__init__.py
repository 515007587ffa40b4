"""The REST workload's kind of measurement: the experiments of spec/scenarios/ on the servers of
servers/, measured by a load engine (`arena run`)."""
