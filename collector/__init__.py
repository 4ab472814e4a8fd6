"""claimwatch's command line and (later) the standalone OTLP collector."""
