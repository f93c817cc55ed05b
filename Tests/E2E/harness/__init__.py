"""Shared code of the end-to-end tests: paths, install.sh, the relying party, and the two browser drivers.

Nothing here builds anything: the host binary comes from $WEBAUTHN_BRIDGE_HOST or .build/debug/webauthn-bridge.
"""
