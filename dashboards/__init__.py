"""Dashboard specs, shipped as package data (`*.yaml`, panels as data)."""
