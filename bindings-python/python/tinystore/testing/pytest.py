"""pytest fixtures for the test kit. Installing tinystore registers this
module as a pytest plugin (the ``pytest11`` entry point
``tinystore.testing.pytest``; ``-p no:tinystore.testing.pytest`` turns it
off), so every test can ask for:

- ``tinystore_test_store``: an embedded :class:`~tinystore.testing.TestStore`;
- ``tinystore_served_test_store``: one served by the test's process, at its
  ``address``.

Each is closed, and its directory removed, when the test ends, passed or
failed. With plugin autoloading off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``),
name the plugin in a ``conftest.py``: ``pytest_plugins =
["tinystore.testing.pytest"]``, or import the fixtures into it.

>>> def test_a_late_writer(tinystore_test_store: TestStore) -> None:  # doctest: +SKIP
...     lease = tinystore_test_store.store.locks("jobs").acquire_sync("report")
...     tinystore_test_store.expire_sync(lease)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import TestStore

__all__ = ["tinystore_served_test_store", "tinystore_test_store"]


@pytest.fixture
def tinystore_test_store() -> Iterator[TestStore]:
    """An embedded test store, closed (its directory removed) when the test
    ends, however it ends."""
    with TestStore.open() as kit:
        yield kit


@pytest.fixture
def tinystore_served_test_store() -> Iterator[TestStore]:
    """A test store served by this process on its Unix socket (``address``),
    with ``store`` connected to it; closed, its server stopped and its
    directory removed when the test ends, however it ends."""
    with TestStore.served() as kit:
        yield kit
