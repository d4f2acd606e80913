"""The guard's conformance matrix in Python (tests/guard_conformance.py
runs it): a backend's I/O for one scenario, and the judging of each step's
outcome against vectors/guards.json's expectations, the same for every
backend but for what tells the driver's own errors."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import tinystore
from tinystore import guard

LANGUAGE = "python"
BAD_RESOURCES = ["", "x" * 1025, "a\u0000b", "chats/\ud800"]

Outcome = BaseException | None
Step = dict[str, Any]


class Failed(Exception):
    """A cell's expectation, not met."""


def fence(text: str) -> int:
    return tinystore.parse_fence(text)


def expect(condition: bool, why: str) -> None:
    if not condition:
        raise Failed(why)


def describe(outcome: Outcome) -> str:
    return "accepted" if outcome is None else f"{type(outcome).__module__}.{type(outcome).__qualname__}: {outcome}"


class Backend:
    """One backend's I/O for one scenario; the expectations are judged
    here, the same for every backend but for the driver's own errors."""

    name = ""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.resource = f"{LANGUAGE}-{scenario}-{uuid.uuid4().hex[:8]}/r"

    # -- each backend's own I/O ------------------------------------------

    def write(self, fence: int, body: str | None, resource: str | None = None) -> Outcome:
        raise NotImplementedError

    def recorded(self) -> int | None:
        raise NotImplementedError

    def corrupt(self) -> None:
        raise NotImplementedError

    def nothing_written(self) -> Callable[[], None]:
        """A check, to call after a refused write, that it changed nothing."""
        raise NotImplementedError

    def driver_error(self, kind: str, err: BaseException) -> bool:
        """Whether ``err`` is the driver's own error of core's ``kind``
        (serialization, permission, unavailable), told by its own type."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    # -- the steps -------------------------------------------------------

    def run(self, step: Step) -> None:
        action = next(k for k in step if k not in ("expect", "expect_between"))
        args: dict[str, Any] = step[action]
        getattr(self, f"step_{action}")(args, step)

    def step_write(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        self.judge(step["expect"], self.write(f, args.get("body")), f)

    def step_recorded(self, args: dict[str, Any], step: Step) -> None:
        want = None if args["fence"] == "none" else fence(args["fence"])
        got = self.recorded()
        expect(got == want, f"recorded {got}, expected {want}")

    def step_corrupt(self, args: dict[str, Any], step: Step) -> None:
        self.corrupt()

    def step_bad_resource(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        for bad in BAD_RESOURCES:
            unchanged = self.nothing_written()
            outcome = self.write(f, None, resource=bad)
            expect(isinstance(outcome, tinystore.Invalid), f"resource {bad[:20]!r}: {describe(outcome)}")
            unchanged()

    def judge(self, want: Any, outcome: Outcome, f: int, resource: str | None = None) -> None:
        resource = self.stale_resource() if resource is None else resource
        got = describe(outcome)
        if want == "accepted":
            expect(outcome is None, f"expected accepted, got {got}")
        elif isinstance(want, dict) and "stale" in want:
            expect(isinstance(outcome, tinystore.Stale), f"expected stale, got {got}")
            assert isinstance(outcome, tinystore.Stale)
            three = (outcome.resource, outcome.fence, outcome.largest)
            wanted = (resource, f, fence(want["stale"]["largest"]))
            expect(three == wanted, f"stale carries {three}, expected {wanted}")
        elif want == "corrupt":
            expect(isinstance(outcome, tinystore.Corrupt), f"expected corrupt, got {got}")
            expect(resource in str(outcome), f"the corrupt error does not name {resource!r}: {got}")
        elif want == "invalid":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
        elif want == "missing_register":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
            expect("ensure" in str(outcome), f"the message does not say to run ensure: {got}")
            cause = outcome.__cause__ if outcome is not None else None
            expect(self.is_driver(cause), f"its cause is not the driver's error: {describe(cause)}")
        elif want == "not_in_transaction":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
            expect("outside a transaction" in str(outcome), f"the message does not say so: {got}")
        elif want in ("serialization", "permission", "unavailable"):
            expect(outcome is not None and not isinstance(outcome, tinystore.Error), f"not the driver's own error: {got}")
            assert outcome is not None
            expect(self.driver_error(want, outcome), f"not the driver's {want} error: {got}")
            serialization = guard.is_serialization_failure(outcome)
            expect(serialization == (want == "serialization"), f"is_serialization_failure is {serialization}: {got}")
        else:
            raise Failed(f"the runner does not know the expectation {want!r}")

    def is_driver(self, err: BaseException | None) -> bool:
        return err is not None and not isinstance(err, tinystore.Error)

    def stale_resource(self) -> str:
        return self.resource
