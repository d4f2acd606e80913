"""unittest helpers for the test kit: :func:`add_test_store` gives a test
(any ``unittest.TestCase``, ``IsolatedAsyncioTestCase`` too) a
:class:`~tinystore.testing.TestStore` that is closed, its directory
removed, when the test ends, passed or failed; :class:`TestStoreCase` is
a ``TestCase`` whose every test gets one as ``self.test_store``.

>>> class ReportTests(TestStoreCase):                          # doctest: +SKIP
...     def test_a_late_writer(self) -> None:
...         lease = self.test_store.store.locks("jobs").acquire_sync("report")
...         self.test_store.expire_sync(lease)
"""

from __future__ import annotations

import unittest
from typing import ClassVar

from . import TestStore

__all__ = ["TestStoreCase", "add_test_store"]


def add_test_store(case: unittest.TestCase, *, served: bool = False) -> TestStore:
    """A new test store for the test ``case`` runs, embedded (or served by
    this process when ``served``), closed by ``case.addCleanup`` when the
    test ends, however it ends."""
    kit = TestStore.served() if served else TestStore.open()
    case.addCleanup(kit.close)
    return kit


class TestStoreCase(unittest.TestCase):
    """A ``TestCase`` whose every test has ``self.test_store``, a new test
    store (served when the class sets ``served = True``), closed when the
    test ends. A ``setUp`` of a subclass calls ``super().setUp()`` first."""

    served: ClassVar[bool] = False
    """Whether each test's store is served by the test's process."""
    test_store: TestStore
    """This test's store."""

    def setUp(self) -> None:
        super().setUp()
        self.test_store = add_test_store(self, served=self.served)
