"""What stored figures say beyond themselves: the fit of time against size, two runs
compared, diffusion and avalanche, security margins."""
