"""Talking to runners and timing them: the runner processes and the session that routes
requests, one-shot operations, calibration, interleaved rounds, the core clock, the
machine context, and the statistics of a point's batches."""
