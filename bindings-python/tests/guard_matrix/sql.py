"""What the SQL backends of the matrix share: a notes table written in each
guarded transaction, kept when accepted, rolled back when refused; the
register read and edited by hand; a dropped register; a check outside a
transaction."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from typing import Any

from tinystore import guard

from . import Backend, Outcome, Step, describe, expect, fence


class Sql(Backend):
    """A SQL backend: subclasses connect."""

    placeholder = "?"

    def connect(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    def admin(self) -> Any:
        """A connection that commits each statement."""
        raise NotImplementedError

    def transaction(self, conn: Any) -> Any:
        raise NotImplementedError

    def sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def write(self, fence: int, body: str | None, resource: str | None = None) -> Outcome:
        resource = self.resource if resource is None else resource
        before = self.notes()
        conn = self.connect()
        try:
            with self.transaction(conn):
                conn.execute(self.sql("insert into notes values (?)"), (str(fence),))
                guard.check(conn, resource, fence)
        except Exception as err:
            outcome: Outcome = err
        else:
            outcome = None
        finally:
            conn.close()
        kept = self.notes() - before
        expect(kept == (1 if outcome is None else 0), f"the caller's own write: {kept} rows kept, outcome {describe(outcome)}")
        return outcome

    def notes(self) -> int:
        with closing(self.admin()) as conn:
            return int(conn.execute("select count(*) from notes").fetchone()[0])

    def registers(self) -> list[tuple[str, str]]:
        with closing(self.admin()) as conn:
            return [(str(r), str(f)) for r, f in conn.execute("select resource, fence from tinystore_fences").fetchall()]

    def recorded(self) -> int | None:
        with closing(self.admin()) as conn:
            row = conn.execute(self.sql("select fence from tinystore_fences where resource = ?"), (self.resource,)).fetchone()
        return None if row is None else fence(str(row[0]))

    def corrupt(self) -> None:
        with closing(self.admin()) as conn:
            conn.execute(self.sql("update tinystore_fences set fence = 'not-a-fence' where resource = ?"), (self.resource,))

    def nothing_written(self) -> Callable[[], None]:
        before = (self.registers(), self.notes())

        def check() -> None:
            after = (self.registers(), self.notes())
            expect(after == before, f"a refused write changed the register or notes: {before} -> {after}")

        return check

    def step_drop_register(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            conn.execute("drop table tinystore_fences")

    def step_outside_transaction(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        with closing(self.autocommit()) as conn:
            try:
                guard.check(conn, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
        self.judge(step["expect"], outcome, f)
        expect(self.recorded() is None, "a check outside a transaction recorded its fence")

    def autocommit(self) -> Any:
        raise NotImplementedError
