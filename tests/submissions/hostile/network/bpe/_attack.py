"""Opens network connections: to a local listener (port filled in when the catalogue builds it)
and outward. Answers honestly whatever happens, so the grade is the solution's; the catalogue
test checks that no connection ever reached its listener."""
import socket

from . import _hostile

PORT = int("@LISTEN_PORT@")


def _reach():
    for host, port in (("127.0.0.1", PORT), ("1.1.1.1", 53), ("8.8.8.8", 443)):
        try:
            with socket.create_connection((host, port), timeout=1.0) as s:
                s.sendall(b"bpe-kit-network-probe\n")
                _hostile.mark("network", f"connected to {host}:{port}")
        except OSError:
            pass


_reach()
_orig = _hostile.package().BPETokenizer.decode


def decode(self, ids):
    _reach()
    return _orig(self, ids)


_hostile.package().BPETokenizer.decode = decode
