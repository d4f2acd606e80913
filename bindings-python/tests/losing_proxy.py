"""A loopback proxy that loses one answer, for the guards' lost-answer
tests: it forwards the first request that ``lose`` picks, waits for the
answer's first bytes (the server has acted by then), runs ``between``, and
closes the connection without passing a byte of that answer on, as a
network that drops it would. Every other request and answer goes through
as it is. The client sees the connection closed, and makes the request
again if it retries.

Given a ``plan``, the proxy plays it on the requests ``lose`` picks, one
step each, in turn: None loses the answer as above; an HTTP answer's
bytes keeps the request from the server (read whole) and gives the client
those bytes, closing the connection, as a server that refused it (a 429)
would. ``between`` runs at the plan's last step, before its answer is
lost or given; the requests picked after it go through. ``played``
counts the steps played."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Sequence
from urllib.parse import urlparse


class LosingProxy:
    """In front of the server at ``upstream`` (a URL); ``url`` is the
    proxy's, with the upstream's path."""

    def __init__(self, upstream: str, lose: Callable[[bytes], bool],
                 between: Callable[[], None] = lambda: None, plan: Sequence[bytes | None] = (None,)) -> None:
        up = urlparse(upstream)
        self.plan = list(plan)
        self.played = 0
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        self.lose = lose
        self.between: Callable[[], None] | None = between
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
        # Whether the lost answer is the plan's last step (``between`` runs).
        last = [False]

        def requests() -> None:
            while not done.is_set():
                try:
                    data = down.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                step = self._step() if self.lose(data) and not losing.is_set() else None
                if step is not None:
                    answer, last[0] = step
                    if answer is not None:
                        try:
                            self._refuse(down, data, answer, last[0])
                            up.shutdown(socket.SHUT_RDWR)  # ends the answers' loop
                        except OSError:
                            pass
                        break
                    losing.set()
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
                    if last[0]:
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

    def _step(self) -> tuple[bytes | None, bool] | None:
        """The plan's next step (an answer, or None: lose it) and whether it
        is the last; None once the plan was played."""
        with self.lock:
            if self.played >= len(self.plan):
                return None
            self.played += 1
            return self.plan[self.played - 1], self.played == len(self.plan)

    def _refuse(self, down: socket.socket, data: bytes, answer: bytes, last: bool) -> None:
        """Reads the rest of the request ``data`` begins (its headers and a
        body of its Content-Length), runs ``between`` if ``last``, and
        answers with ``answer``."""
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
        if last:
            self._between()
        down.sendall(answer)

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
