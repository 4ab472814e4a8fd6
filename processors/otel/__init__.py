"""OpenTelemetry adapters: reading agent output from spans, annotating them, the SDK processor."""
