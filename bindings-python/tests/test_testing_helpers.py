"""The test kit's framework helpers close what they started when the test
ends, even when it fails: the pytest fixtures (the plugin pytest loads by
itself, or named in a conftest) and the unittest helpers, each run in a
child process on failing and erroring tests that write down their store's
directory, which must be gone afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tinystore.testing import TestStore

# Tests that record each kit's directory (one line each in dirs.txt), hold
# a lease, then fail or raise.
PYTEST_CHILD = '''
from pathlib import Path

import pytest

RECORD = Path(__file__).with_name("dirs.txt")


def record(kit):
    with RECORD.open("a") as f:
        f.write(f"{kit.dir}\\n")
    kit.store.locks("jobs").acquire_sync("report")


def test_embedded_fails(tinystore_test_store):
    record(tinystore_test_store)
    assert False, "the test failed"


def test_served_raises(tinystore_served_test_store):
    record(tinystore_served_test_store)
    raise RuntimeError("the test raised")


def test_passes(tinystore_test_store):
    record(tinystore_test_store)
    assert tinystore_test_store.store.status_sync().testing
'''

UNITTEST_CHILD = '''
import unittest
from pathlib import Path

from tinystore.testing.unittest import TestStoreCase, add_test_store

RECORD = Path(__file__).with_name("dirs.txt")


def record(kit):
    with RECORD.open("a") as f:
        f.write(f"{kit.dir}\\n")
    kit.store.locks("jobs").acquire_sync("report")


class Embedded(TestStoreCase):
    def test_fails(self):
        record(self.test_store)
        self.fail("the test failed")

    def test_passes(self):
        record(self.test_store)
        self.assertTrue(self.test_store.store.status_sync().testing)
        self.assertIsNone(self.test_store.address)


class Served(TestStoreCase):
    served = True

    def test_raises(self):
        record(self.test_store)
        self.assertIsNotNone(self.test_store.address)
        raise RuntimeError("the test raised")


class Plain(unittest.TestCase):
    def test_two_kits_fail(self):
        record(add_test_store(self))
        record(add_test_store(self, served=True))
        self.fail("the test failed")


class Async(TestStoreCase, unittest.IsolatedAsyncioTestCase):
    async def test_fails(self):
        record(self.test_store)
        lease = await self.test_store.store.locks("jobs").acquire("other")
        await self.test_store.expire(lease)
        self.fail("the test failed")


if __name__ == "__main__":
    unittest.main()
'''


def run(folder: Path, args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=folder,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def recorded(folder: Path, count: int) -> list[Path]:
    dirs = [Path(line) for line in (folder / "dirs.txt").read_text().splitlines()]
    assert len(dirs) == count, dirs
    assert len(set(dirs)) == count, "each test has a store of its own"
    return dirs


def assert_removed(dirs: list[Path]) -> None:
    left = [d for d in dirs if d.exists()]
    assert not left, f"left behind: {left}"


def test_the_plugins_fixtures_close_the_kit_when_a_test_fails(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(PYTEST_CHILD)
    done = run(tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_child.py"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout, done.stdout
    assert_removed(recorded(tmp_path, 3))


@pytest.mark.parametrize("autoload", ["1", ""])
def test_a_conftest_names_the_plugin(tmp_path: Path, autoload: str) -> None:
    # With autoloading off, the conftest's pytest_plugins brings the
    # fixtures; with it on, naming the plugin again is harmless.
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tinystore.testing.pytest"]\n')
    (tmp_path / "test_child.py").write_text(PYTEST_CHILD)
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": autoload} if autoload else {}
    done = run(tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_child.py"], env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout, done.stdout
    assert_removed(recorded(tmp_path, 3))


def test_fixtures_imported_into_a_conftest(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from tinystore.testing.pytest import tinystore_served_test_store, tinystore_test_store\n"
    )
    (tmp_path / "test_child.py").write_text(PYTEST_CHILD)
    done = run(tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_child.py"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout, done.stdout
    assert_removed(recorded(tmp_path, 3))


def test_without_the_plugin_there_is_no_fixture(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(PYTEST_CHILD)
    done = run(tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:tinystore.testing.pytest", "test_child.py"])
    assert done.returncode == 1 and "fixture 'tinystore_test_store' not found" in done.stdout, done.stdout


def test_the_unittest_helpers_close_the_kit_when_a_test_fails(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(UNITTEST_CHILD)
    done = run(tmp_path, ["-m", "unittest", "test_child"])
    assert done.returncode == 1, done.stderr
    assert "FAILED (failures=3, errors=1)" in done.stderr, done.stderr
    assert "Ran 5 tests" in done.stderr, done.stderr
    assert_removed(recorded(tmp_path, 6))


def test_pytest_runs_the_unittest_helpers_too(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(UNITTEST_CHILD)
    done = run(tmp_path, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_child.py"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4 failed, 1 passed" in done.stdout, done.stdout
    assert_removed(recorded(tmp_path, 6))


def test_the_fixtures_give_a_kit_each(
    tinystore_test_store: TestStore, tinystore_served_test_store: TestStore
) -> None:
    assert isinstance(tinystore_test_store, TestStore) and tinystore_test_store.address is None
    assert tinystore_served_test_store.address == f"unix:{tinystore_served_test_store.dir / 'tinystore.sock'}"
    assert tinystore_test_store.dir != tinystore_served_test_store.dir
