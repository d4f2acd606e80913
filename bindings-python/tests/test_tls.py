"""TLS through a real server, with certificates made by
tests/tls/make-certs.sh (openssl): a good handshake, and each refusal
Unauthorized with its cause: a CA the client does not trust, a wrong host
name, a plain tcp:// client on the TLS port, an expired certificate, and
mutual TLS without a client certificate."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import tinystore
from conftest import REPO, Server, start_server, stop_server


def make_certs(dir: Path) -> Path:
    subprocess.run(["sh", str(REPO / "tests" / "tls" / "make-certs.sh"), str(dir)], check=True)
    return dir


class TLSServers:
    """Starts TLS servers, each stopped at the end."""

    def __init__(self, tmp: Path, certs: Path) -> None:
        self.tmp, self.certs, self.servers = tmp, certs, list[Server]()

    def start(self, cert: str, tcp: bool = True, extra: list[str] | None = None) -> tuple[Server, str]:
        """A server with the certificate `cert` of certs; it and its port."""
        files = ["--tls-cert", str(self.certs / f"{cert}.pem"), "--tls-key", str(self.certs / f"{cert}.key")]
        if not tcp:
            files = ["--tcp", "127.0.0.1:0", *files]
        server = start_server(self.tmp / f"served-{len(self.servers)}", tcp=tcp, extra=files + (extra or []))
        self.servers.append(server)
        log = (server.dir.with_suffix(".log")).read_text()
        port = log.split("tls://", 1)[1].split()[0].rsplit(":", 1)[1]
        return server, port


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[TLSServers]:
    started = TLSServers(tmp_path, make_certs(tmp_path / "certs"))
    try:
        yield started
    finally:
        for server in started.servers:
            stop_server(server)


def refused(address: str, because: str, token: str | None = None) -> None:
    with pytest.raises(tinystore.Unauthorized, match=because):
        tinystore.connect(address, token=token)


def test_a_good_handshake_is_served_and_each_bad_one_refused_with_its_cause(
    servers: TLSServers, tmp_path: Path
) -> None:
    other = make_certs(tmp_path / "other")
    ca = f"?ca={servers.certs / 'ca.pem'}"
    server, port = servers.start("server")
    token = server.token
    with tinystore.connect(f"tls://localhost:{port}{ca}", token=token) as store:
        with store.locks("tls").hold("k") as lease:
            assert lease.held and lease.fence > 0
    refused(f"tls://localhost:{port}?ca={other / 'ca.pem'}", "not signed by a trusted CA", token)
    refused(f"tls://127.0.0.1:{port}{ca}", "not valid for this host name", token)
    refused(f"tcp://127.0.0.1:{port}", "this port speaks TLS", token)

    _, expired = servers.start("expired")
    refused(f"tls://localhost:{expired}{ca}", "expired", token)

    _, mutual = servers.start("server", tcp=False, extra=["--tls-client-ca", str(servers.certs / "ca.pem")])
    refused(f"tls://localhost:{mutual}{ca}", "requires a client certificate")
    client = f"&cert={servers.certs / 'client.pem'}&key={servers.certs / 'client.key'}"
    with tinystore.connect(f"tls://localhost:{mutual}{ca}{client}") as store:
        with store.locks("tls").hold("k") as lease:
            assert lease.held
