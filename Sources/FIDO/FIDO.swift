// FIDO module — see docs/architecture.md.
