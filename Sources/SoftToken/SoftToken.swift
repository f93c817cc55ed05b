// SoftToken module — see docs/architecture.md.
