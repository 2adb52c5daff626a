"""Task synthesis: oracle execution of sampled chains, user scenarios, calibration, statistics."""
