"""The test site over https with a certificate no browser trusts: a self-signed one made for the run, as a network
attacker (or a misconfigured server) would present it.

Served on loopback with the same relying party as rp_server.py, at any name that resolves there: `localhost`, or
CERT_ERROR_HOST, which the browsers are told resolves to 127.0.0.1 (`chromium_flags()`, `firefox_prefs()`), so
that the page is an ordinary site: both browsers exempt localhost from their certificate check for WebAuthn.
`firefox_override()` is the cert_override.txt line Firefox writes when the user clicks "Accept the Risk and
Continue"; in Chromium the user clicks through the warning page (Chromium.open_past_certificate_error).
"""
import datetime
import hashlib
import ssl
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from .rp_server import RelyingParty, _Handler

CERT_ERROR_HOST = "victim.test"


def self_signed_certificate(names: list[str]) -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) for `names`, signed by its own key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=7))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
                   .sign(key, hashes.SHA256()))
    return (certificate.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()))


class _TLSHandler(_Handler):
    @property
    def origin(self) -> str:
        return f"https://{self.headers.get('Host', '')}"


class TLSSite:
    """One https server on 127.0.0.1 over `rp`, with a fresh self-signed certificate for both names."""

    def __init__(self, rp: RelyingParty):
        self.certificate, key = self_signed_certificate([CERT_ERROR_HOST, "localhost"])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory() as scratch:   # ssl loads a chain only from files
            cert_file, key_file = Path(scratch) / "cert.pem", Path(scratch) / "key.pem"
            cert_file.write_bytes(self.certificate)
            key_file.write_bytes(key)
            context.load_cert_chain(cert_file, key_file)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_TLSHandler,), {"rp": rp}))
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self._server.server_port

    def origin(self, host: str = CERT_ERROR_HOST) -> str:
        return f"https://{host}:{self.port}"

    @staticmethod
    def chromium_flags() -> tuple[str, ...]:
        return (f"--host-resolver-rules=MAP {CERT_ERROR_HOST} 127.0.0.1",)

    @staticmethod
    def firefox_prefs() -> dict:
        return {"network.dns.localDomains": CERT_ERROR_HOST}

    def firefox_override(self) -> dict:
        """The profile file Firefox keeps the user's "Accept the risk" decisions in, for both names."""
        der = ssl.PEM_cert_to_DER_cert(self.certificate.decode())
        digest = hashlib.sha256(der).hexdigest().upper()
        fingerprint = ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
        lines = [f"{host}:{self.port}:\tOID.2.16.840.1.101.3.4.2.1\t{fingerprint}\t"
                 for host in (CERT_ERROR_HOST, "localhost")]
        return {"cert_override.txt": "# PSM Certificate Override Settings file\n"
                                     "# This is a generated file!  Do not edit.\n" + "\n".join(lines) + "\n"}

    def close(self):
        self._server.shutdown()
        self._server.server_close()
