"""Side-channel checks: is an implementation's running time tied to its secrets?

Two methods, neither a proof:
- taint (taint.py): TIMECOP-style, the native engine's implementations only. The
  secret is marked undefined for valgrind memcheck, which then reports branches and
  memory addresses computed from it. What it finds is real for the code path valgrind
  ran; what it does not find may hide in another path (valgrind shows its own CPUID)
  or in instructions whose time depends on their operands (memcheck does not see those).
- stat (dudect.py): dudect-style, every runner. Single calls timed for a fixed and a
  random input class, Welch's t-test on cropped samples. Finding nothing means "no leak
  detected after N measurements", never that the code is constant-time.
"""
