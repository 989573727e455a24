"""Mutation testing of the verification gate: faults injected by a proxy runner, drawn with a
fixed seed, each mutant verified alone, scored by operator and family."""
