"""The validation core: detectors, fact registries, trust-scaled verdicts."""
