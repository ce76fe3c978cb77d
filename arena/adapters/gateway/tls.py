"""TLS for the gateway: bot tokens are bearer secrets, so on any network but loopback
the gateway should be given a certificate (``rungateway --tls-cert/--tls-key`` or the
settings ``GATEWAY_TLS_CERT`` / ``GATEWAY_TLS_KEY``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc


class TlsError(ValueError):
    """The certificate or key cannot be used (missing, unreadable, only one given)."""


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self._read(self.key), self._read(self.cert))])

    @staticmethod
    def _read(path: Path) -> bytes:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TlsError(f"cannot read {path}: {exc.strerror}") from None
        if b"-----BEGIN" not in data:
            raise TlsError(f"{path} is not a PEM file")
        return data


def tls_files(cert: str | Path | None, key: str | Path | None) -> TlsFiles | None:
    """Both paths, or neither (plain text, for loopback and development)."""
    if not cert and not key:
        return None
    if not cert or not key:
        raise TlsError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
    files = TlsFiles(Path(cert), Path(key))
    files.credentials()  # fail at start, not on the first bot
    return files
