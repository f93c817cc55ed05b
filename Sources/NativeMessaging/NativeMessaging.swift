// NativeMessaging module — see docs/architecture.md.
