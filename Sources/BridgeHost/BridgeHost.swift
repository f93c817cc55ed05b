// BridgeHost module — see docs/architecture.md.
