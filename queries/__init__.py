"""The named query library, shipped as package data (`*.sql`, one query per file)."""
