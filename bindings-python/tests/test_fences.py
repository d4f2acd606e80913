"""The fence vectors of vectors/fences.json, both ways, through the
core's parser and text form; and fences of real leases."""

from __future__ import annotations

import json
from typing import Any

import pytest

import tinystore
from conftest import REPO

VECTORS: dict[str, Any] = json.loads((REPO / "vectors" / "fences.json").read_text())
MASK64 = (1 << 64) - 1


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["value"])
def test_case_both_ways(case: dict[str, str]) -> None:
    value = tinystore.parse_fence(case["value"])
    assert isinstance(value, int)
    assert tinystore.fence_text(value) == case["text"]
    assert tinystore.parse_fence(case["text"]) == value
    assert f"{value:040d}" == case["text"]
    assert value >> 64 == int(case["epoch"])
    assert value & MASK64 == int(case["count"])
    assert (int(case["epoch"]) << 64) | int(case["count"]) == value


@pytest.mark.parametrize("pair", VECTORS["ordered"], ids=lambda p: "<".join(p))
def test_ordered_as_numbers_and_texts(pair: list[str]) -> None:
    low, high = (tinystore.parse_fence(p) for p in pair)
    assert low < high
    assert tinystore.fence_text(low) < tinystore.fence_text(high)


@pytest.mark.parametrize("text", VECTORS["invalid"], ids=repr)
def test_invalid_text_refused(text: str) -> None:
    with pytest.raises(tinystore.Invalid) as caught:
        tinystore.parse_fence(text)
    assert caught.value.code == "invalid"
    assert "fence text" in str(caught.value)


def test_refuses_what_python_int_accepts() -> None:
    accepted_by_int = [t for t in VECTORS["invalid"] if _int_accepts(t)]
    assert {"+1", " 7", "7 ", "\u0663", "1_000", "-1"} <= set(accepted_by_int)
    for text in accepted_by_int:
        with pytest.raises(tinystore.Invalid):
            tinystore.parse_fence(text)


def _int_accepts(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("value", [-1, 1 << 128, True])
def test_fence_text_refuses_non_fences(value: int) -> None:
    with pytest.raises(tinystore.Invalid):
        tinystore.fence_text(value)


def test_parse_refuses_non_str() -> None:
    with pytest.raises(tinystore.Invalid):
        tinystore.parse_fence(7)  # type: ignore[arg-type]


def test_lease_fences_are_ints_that_grow(store: tinystore.Store) -> None:
    locks = store.locks("fences")
    seen = []
    keys: list[str | int] = ["a", "b", 42, "a"]
    for key in keys:
        with locks.hold(key) as lease:
            assert type(lease.fence) is int
            assert tinystore.parse_fence(f"{lease.fence:040d}") == lease.fence
            seen.append(lease.fence)
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    assert seen[0] & MASK64 == 1  # the first lease after an open has count 1
