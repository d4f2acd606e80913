"""The end of a guard's run, by the one policy for the driver's own errors:
accepted returns; the guard's own refusal raises the tinystore error (from
the driver's error when the last step failed in the driver, a missing
register table); a failure of the driver raises the driver's own exception
as it was, so that ``except psycopg.errors.SerializationFailure`` and the
like keep working. Which of the three it is, is core's word."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NoReturn

from .._errors import Internal
from ._driver import failure_of

if TYPE_CHECKING:
    from .._native import DriverFailure


class Run:
    """The driver's exception of the step that failed last, kept to raise
    or to chain when the machine is done."""

    def __init__(self) -> None:
        self.failed: BaseException | None = None

    def failure(self, err: BaseException) -> tuple[Literal["failed"], DriverFailure]:
        """The observation of a step that raised ``err``."""
        self.failed = err
        return ("failed", failure_of(err))

    def end(self, done: object) -> None:
        """Given the machine's last step, ``("done", kind, error)``: returns
        when accepted; raises otherwise, as the policy says."""
        if done != ("done", "accepted", None):
            end(done, self.failed)


def end(done: object, failed: BaseException | None) -> NoReturn:
    """Raises for a machine's end other than accepted, ``("done", "refused"
    | "driver", error)``, as the policy says: the driver's own exception
    ``failed`` for a driver's failure, else the guard's ``error`` from it."""
    match done:
        case ("done", "driver", _) if failed is not None:
            raise failed
        case ("done", "refused" | "driver", BaseException() as error):
            raise error from failed
    raise Internal(f"a guard ended as {done!r}, an end its core never gives")
