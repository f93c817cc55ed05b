// Prompts module — see docs/architecture.md.
