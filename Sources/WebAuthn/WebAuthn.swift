// WebAuthn module — see docs/architecture.md.
