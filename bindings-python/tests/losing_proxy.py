"""A loopback proxy that loses one answer, for the guards' lost-answer
tests: it forwards the first request that ``lose`` picks, waits for the
answer's first bytes (the server has acted by then), runs ``between``, and
closes the connection without passing a byte of that answer on, as a
network that drops it would. Every other request and answer goes through
as it is. The client sees the connection closed, and makes the request
again if it retries.

Given ``answer`` (an HTTP answer's bytes), the proxy instead keeps the
picked request from the server: it reads the request whole, runs
``between``, gives the client ``answer`` and closes the connection, as a
server that refused it (a 429) would."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from urllib.parse import urlparse


class LosingProxy:
    """In front of the server at ``upstream`` (a URL); ``url`` is the
    proxy's, with the upstream's path."""

    def __init__(self, upstream: str, lose: Callable[[bytes], bool],
                 between: Callable[[], None] = lambda: None, answer: bytes | None = None) -> None:
        up = urlparse(upstream)
        self.answer = answer
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        self.lose = lose
        self.between: Callable[[], None] | None = between
        self.lost_one = False
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}{up.path}"
        self.failures: list[BaseException] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            threading.Thread(target=self._serve, args=(down, up), daemon=True).start()

    def _serve(self, down: socket.socket, up: socket.socket) -> None:
        losing = threading.Event()
        done = threading.Event()

        def requests() -> None:
            while not done.is_set():
                try:
                    data = down.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                if self.lose(data):
                    with self.lock:
                        if not self.lost_one:
                            self.lost_one = True
                            losing.set()
                    if losing.is_set() and self.answer is not None:
                        try:
                            self._refuse(down, data)
                            up.shutdown(socket.SHUT_RDWR)  # ends the answers' loop
                        except OSError:
                            pass
                        break
                try:
                    up.sendall(data)
                except OSError:
                    break
            done.set()

        threading.Thread(target=requests, daemon=True).start()
        try:
            while True:
                try:
                    data = up.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                if losing.is_set():
                    self._between()
                    break  # the answer is lost with its connection
                down.sendall(data)
        except OSError:
            pass
        finally:
            done.set()
            for s in (down, up):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def _refuse(self, down: socket.socket, data: bytes) -> None:
        """Reads the rest of the request ``data`` begins (its headers and a
        body of its Content-Length), runs ``between`` and answers with
        ``answer``."""
        while b"\r\n\r\n" not in data:
            more = down.recv(65536)
            if not more:
                return
            data += more
        head, _, got = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(got) < length:
            more = down.recv(65536)
            if not more:
                return
            got += more
        self._between()
        assert self.answer is not None
        down.sendall(self.answer)

    def _between(self) -> None:
        """Runs ``between``, once: its failure is raised again by close."""
        with self.lock:
            between, self.between = self.between, None
        if between is not None:
            try:
                between()
            except BaseException as err:  # raised again by the test
                self.failures.append(err)

    def close(self) -> None:
        self.listener.close()
        if self.failures:
            raise self.failures[0]
