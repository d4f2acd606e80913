//! The DynamoDB guard as a machine that does no I/O: the register item's
//! conditional put joins the caller's own items in one
//! `TransactWriteItems`, which DynamoDB commits all or none. The binding
//! adds [`RegisterPut`] as the last item, runs the transaction on the
//! caller's client and hands back what happened.
//!
//! The register is a table of its own (`tinystore_fences` unless named),
//! one item per resource: `resource` (its key, a string) and `fence`, the
//! fence's 40 digits as a string: a DynamoDB number holds 38 digits and a
//! fence up to 39. The condition `attribute_not_exists(fence) OR (fence <=
//! :fence AND size(fence) = :digits)` compares the strings byte by byte,
//! which orders 40-digit texts as their numbers; a recorded value that is
//! not 40 characters, or not a string, fails it, and the read-back says
//! `corrupt`. A transaction holds at most 100 items: the caller's at most
//! 99.
//!
//! A transaction whose answer was lost and which was made again (the
//! SDK's retries) may have been written by the attempt that went
//! unanswered, and then overtaken by a larger fence before the retry: a
//! store that does not answer the retry from the first attempt's outcome
//! (`ClientRequestToken`) cancels it. The binding says so
//! ([`DynamoCheck::attempted`]), and a larger fence found after it ends
//! in `unavailable`, the outcome unknown, never `stale`, which says nothing
//! was written (and which a lease's store would count).
//!
//! ```
//! use tinystore::guard::dynamo_check::{DynamoCheck, DynamoObserved, DynamoStep};
//! use tinystore::guard::Verdict;
//! use tinystore::Fence;
//! let mut check = DynamoCheck::new("tinystore_fences", "chats/42", Fence::from_u128(7), 1);
//! let DynamoStep::Transact(register) = check.start() else { unreachable!() };
//! assert_eq!(register.resource, "chats/42");
//! // ... the binding runs TransactWriteItems with its item and the register's.
//! assert_eq!(check.observe(DynamoObserved::Written), DynamoStep::Done(Verdict::Accepted));
//! ```

use super::attempt::unknown_outcome;
use super::decide::refused_in;
use super::driver::DriverFailure;
use super::resource::check_resource;
use super::verdict::Verdict;
use crate::error::{Code, Error};
use crate::fence::{Fence, TEXT_DIGITS};

/// The register table's name unless the caller names another.
pub const REGISTER_TABLE: &str = "tinystore_fences";

/// The most items one `TransactWriteItems` takes, the register's among them.
pub const MAX_ITEMS: usize = 100;

/// The condition of the register's put.
pub const CONDITION: &str =
    "attribute_not_exists(fence) OR (fence <= :fence AND size(fence) = :digits)";

/// The reason code DynamoDB gives an item whose condition failed.
pub const CONDITION_FAILED: &str = "ConditionalCheckFailed";

/// The register item's put, for the binding to write in its SDK's shape:
/// `Put { TableName: table, Item: { resource: S, fence: S },
/// ConditionExpression: CONDITION, ExpressionAttributeValues: { ":fence":
/// S fence, ":digits": N "40" }, ReturnValuesOnConditionCheckFailure:
/// ALL_OLD }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterPut {
    /// The register table.
    pub table: String,
    /// The item's key, `resource`.
    pub resource: String,
    /// The item's `fence` and the condition's `:fence`: 40 digits.
    pub fence: String,
    /// The condition's `:digits`: 40, a number.
    pub digits: usize,
}

/// What the binding does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DynamoStep {
    /// Run `TransactWriteItems` with the caller's items, then this put.
    Transact(RegisterPut),
    /// Read the register item (`GetItem`, `ConsistentRead`) of this table
    /// and resource, and observe its fence ([`DynamoObserved::Read`]).
    Read {
        /// The register table.
        table: String,
        /// The item's key.
        resource: String,
    },
    /// The protocol ended.
    Done(Verdict),
}

/// What the binding observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DynamoObserved {
    /// The transaction was written.
    Written,
    /// The transaction was cancelled (`TransactionCanceledException`):
    /// each item's reason code in order (`"None"` for an item that was
    /// fine; the register's is last), the register item's `fence` when
    /// DynamoDB returned the item (as text; a value that is not a string
    /// described, such as `"(a number)"`), and the exception.
    Cancelled {
        /// Each item's reason code, the register's last.
        codes: Vec<String>,
        /// The register item's fence as returned, if it was.
        recorded: Option<String>,
        /// The exception, described.
        failure: DriverFailure,
    },
    /// The register item's fence as read (`None`: no item, or no
    /// `fence`).
    Read(Option<String>),
    /// The call failed otherwise.
    Failed(DriverFailure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Written,
    Read,
    Done,
}

/// One guarded transaction of `items` caller's items and the register's.
#[derive(Debug, Clone)]
pub struct DynamoCheck {
    table: String,
    resource: String,
    fence: Fence,
    items: usize,
    state: State,
    /// The cancellation a read must explain: a register's reason other
    /// than a failed condition (moto answers `TypeError` for a register
    /// value of another type); the driver's error unless the read shows a
    /// larger or malformed fence.
    unexplained: Option<DriverFailure>,
    /// Whether an attempt of the transaction went unanswered and was made
    /// again ([`DynamoCheck::attempted`]).
    unknown_attempt: bool,
}

/// Reasons that say nothing of the register's value: a conflict, a
/// throttle, a service error.
const TRANSIENT: [&str; 6] = [
    "TransactionConflict",
    "ThrottlingError",
    "ProvisionedThroughputExceeded",
    "RequestLimitExceeded",
    "InternalServerError",
    "None",
];

impl DynamoCheck {
    /// A guard of `fence` for `resource` in register table `table`, with
    /// `items` items of the caller's in the same transaction.
    pub fn new(table: &str, resource: &str, fence: Fence, items: usize) -> DynamoCheck {
        DynamoCheck {
            table: table.to_string(),
            resource: resource.to_string(),
            fence,
            items,
            state: State::Start,
            unexplained: None,
            unknown_attempt: false,
        }
    }

    /// Tells the machine that an attempt of the transaction got `status`
    /// as its answer (`None`: no answer came). An attempt whose outcome
    /// that leaves unknown ([`unknown_outcome`]: no answer, a 5xx, a 408)
    /// may have been written: a larger fence observed from then on ends in
    /// `unavailable` (the outcome unknown) rather than `stale`. Call it for
    /// each attempt, before observing the last attempt's outcome.
    pub fn attempted(&mut self, status: Option<u16>) {
        self.unknown_attempt |= unknown_outcome(status);
    }

    /// The first step: the transaction, or the end when the resource is bad,
    /// the table name empty, or the caller gave more than 99 items
    /// (`invalid`, before any call).
    pub fn start(&mut self) -> DynamoStep {
        if self.state != State::Start {
            return self.misuse("start");
        }
        if let Err(err) = self.checked() {
            return self.end(Verdict::Refused(err));
        }
        self.state = State::Written;
        DynamoStep::Transact(RegisterPut {
            table: self.table.clone(),
            resource: self.resource.clone(),
            fence: self.fence.text(),
            digits: TEXT_DIGITS,
        })
    }

    fn checked(&self) -> crate::Result<()> {
        check_resource(&self.resource)?;
        if self.table.is_empty() {
            return Err(Error::invalid(format!(
                "the DynamoDB guard of {:?} was given an empty register table name",
                self.resource
            )));
        }
        if self.items + 1 > MAX_ITEMS {
            return Err(Error::invalid(format!(
                "a guarded DynamoDB transaction takes at most {} items of yours (the register's is the {MAX_ITEMS}th), not {}",
                MAX_ITEMS - 1,
                self.items
            )));
        }
        Ok(())
    }

    /// The step after `observed`.
    pub fn observe(&mut self, observed: DynamoObserved) -> DynamoStep {
        match (self.state, observed) {
            (State::Written, DynamoObserved::Written) => self.end(Verdict::Accepted),
            (
                State::Written,
                DynamoObserved::Cancelled {
                    codes,
                    recorded,
                    failure,
                },
            ) => self.cancelled(&codes, recorded, failure),
            (State::Read, DynamoObserved::Read(recorded)) => self.decided(recorded.as_deref()),
            (State::Written | State::Read, DynamoObserved::Failed(failure)) => {
                let doing = format!("guarding {:?} in DynamoDB", self.resource);
                self.end(Verdict::Driver(failure.error(&doing)))
            }
            (_, observed) => self.misuse(&format!("{observed:?}")),
        }
    }

    fn cancelled(
        &mut self,
        codes: &[String],
        recorded: Option<String>,
        failure: DriverFailure,
    ) -> DynamoStep {
        let whole = codes.len() == self.items + 1;
        let (theirs, register) = codes.split_at(codes.len().saturating_sub(1));
        let register = register.first().map(String::as_str).unwrap_or("None");
        let theirs_fine = theirs.iter().all(|c| c == "None");
        if whole && register == CONDITION_FAILED && recorded.is_some() {
            return self.decided(recorded.as_deref());
        }
        if whole && theirs_fine && !TRANSIENT.contains(&register) {
            // The register's condition failed but DynamoDB returned no item
            // (an emulator may not), or its value could not be compared:
            // read it.
            if register != CONDITION_FAILED {
                self.unexplained = Some(failure);
            }
            self.state = State::Read;
            return DynamoStep::Read {
                table: self.table.clone(),
                resource: self.resource.clone(),
            };
        }
        // Another item's reason: a condition of the caller's, a conflict
        // (`TransactionConflict`), a throttle: the driver's error, its code
        // the first reason that is not "None".
        let reason = codes.iter().find(|c| c.as_str() != "None").cloned();
        let failure = DriverFailure {
            error_code: reason.or(failure.error_code),
            ..failure
        };
        let doing = format!("guarding {:?} in DynamoDB", self.resource);
        self.end(Verdict::Driver(failure.error(&doing)))
    }

    fn decided(&mut self, recorded: Option<&str>) -> DynamoStep {
        let register = format!("DynamoDB table {}", self.table);
        if let Some(failure) = self.unexplained.take() {
            // Only a larger or malformed fence explains the cancellation.
            let explained = refused_in(&register, &self.resource, self.fence, recorded);
            let verdict = match explained {
                Err(err) if matches!(err.code(), Code::Stale | Code::Corrupt) => {
                    Verdict::Refused(err)
                }
                _ => {
                    let doing = format!("guarding {:?} in DynamoDB", self.resource);
                    Verdict::Driver(failure.error(&doing))
                }
            };
            return self.end(self.in_doubt(verdict));
        }
        let verdict = match refused_in(&register, &self.resource, self.fence, recorded) {
            // The condition failed, yet the fence now read is equal: a
            // larger one cannot have been replaced by it, so a writer of
            // this fence came in between; the caller's items were not
            // written.
            Ok(()) => Verdict::Refused(Error::internal(format!(
                "the DynamoDB guard's condition failed for {:?} with fence {} recorded, its own",
                self.resource, self.fence
            ))),
            Err(err) => Verdict::Refused(err),
        };
        self.end(self.in_doubt(verdict))
    }

    /// `verdict`, a `stale` refusal after an answer was lost made
    /// `unavailable`: the unanswered attempt may have been written before
    /// the larger fence.
    fn in_doubt(&self, verdict: Verdict) -> Verdict {
        let Verdict::Refused(err) = &verdict else {
            return verdict;
        };
        match err.stale_detail() {
            Some(stale) if self.unknown_attempt => Verdict::Refused(Error::new(
                Code::Unavailable,
                format!(
                    "the guarded DynamoDB transaction for {:?} with fence {} lost an answer and was made again, which found fence {} recorded: the attempt that went unanswered may have been written before it; whether it was is unknown",
                    self.resource, self.fence, stale.largest
                ),
            )),
            _ => verdict,
        }
    }

    fn end(&mut self, verdict: Verdict) -> DynamoStep {
        self.state = State::Done;
        DynamoStep::Done(verdict)
    }

    fn misuse(&mut self, what: &str) -> DynamoStep {
        let state = self.state;
        self.end(Verdict::Refused(Error::internal(format!(
            "the DynamoDB guard of {:?} was given {what} in state {state:?}",
            self.resource
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    #[test]
    fn a_larger_fence_after_a_lost_answer_is_unavailable_not_stale() {
        let larger = Fence::from_u128(9).text();
        for (codes, recorded, read) in [
            (vec!["None", CONDITION_FAILED], Some(larger.clone()), None),
            (vec!["None", CONDITION_FAILED], None, Some(larger.clone())),
        ] {
            let mut check = started(1);
            check.attempted(None);
            let mut step = check.observe(DynamoObserved::Cancelled {
                codes: codes.iter().map(|c| c.to_string()).collect(),
                recorded,
                failure: DriverFailure::new("cancelled"),
            });
            if let Some(read) = read {
                assert!(matches!(step, DynamoStep::Read { .. }), "{step:?}");
                step = check.observe(DynamoObserved::Read(Some(read)));
            }
            let DynamoStep::Done(Verdict::Refused(err)) = step else {
                panic!("{step:?}")
            };
            assert_eq!(err.code(), Code::Unavailable, "{err}");
            assert!(err.stale_detail().is_none());
            assert!(err.message().contains("may have been written"), "{err}");
        }
        // A malformed register is corrupt all the same.
        let mut check = started(1);
        check.attempted(None);
        let step = check.observe(DynamoObserved::Cancelled {
            codes: vec!["None".into(), CONDITION_FAILED.into()],
            recorded: Some("seven".into()),
            failure: DriverFailure::new("cancelled"),
        });
        let DynamoStep::Done(Verdict::Refused(err)) = step else {
            panic!("{step:?}")
        };
        assert_eq!(err.code(), Code::Corrupt, "{err}");
    }

    #[test]
    fn a_retried_attempt_that_was_answered_leaves_a_larger_fence_stale() {
        let larger = Fence::from_u128(9).text();
        for (status, code) in [
            (Some(429), Code::Stale),
            (Some(400), Code::Stale),
            (Some(408), Code::Unavailable),
            (Some(500), Code::Unavailable),
            (None, Code::Unavailable),
        ] {
            let mut check = started(1);
            check.attempted(status);
            let step = check.observe(cancelled(&["None", CONDITION_FAILED], Some(&larger)));
            assert_eq!(refused(step).code(), code, "{status:?}");
        }
    }

    fn started(items: usize) -> DynamoCheck {
        let mut check = DynamoCheck::new(REGISTER_TABLE, "chats/42", Fence::from_u128(7), items);
        assert!(matches!(check.start(), DynamoStep::Transact(_)));
        check
    }

    fn refused(step: DynamoStep) -> Error {
        match step {
            DynamoStep::Done(Verdict::Refused(err)) => err,
            other => panic!("not refused: {other:?}"),
        }
    }

    fn cancelled(codes: &[&str], recorded: Option<&str>) -> DynamoObserved {
        DynamoObserved::Cancelled {
            codes: codes.iter().map(|c| c.to_string()).collect(),
            recorded: recorded.map(str::to_string),
            failure: DriverFailure {
                error_code: Some("TransactionCanceledException".into()),
                ..DriverFailure::new("Transaction cancelled")
            },
        }
    }

    #[test]
    fn the_register_failing_with_a_larger_fence_is_stale() {
        let nine = Fence::from_u128(9).text();
        let mut check = started(1);
        let err = refused(check.observe(cancelled(&["None", CONDITION_FAILED], Some(&nine))));
        let stale = err.stale_detail().unwrap();
        assert_eq!((stale.fence, stale.largest), (7, 9));
        let mut check = started(1);
        let err =
            refused(check.observe(cancelled(&["None", CONDITION_FAILED], Some("(a number)"))));
        assert_eq!(err.code(), Code::Corrupt);
        assert!(err.message().contains("tinystore_fences"), "{err}");
    }

    #[test]
    fn no_item_returned_reads_it() {
        let mut check = started(0);
        let step = check.observe(cancelled(&[CONDITION_FAILED], None));
        assert!(matches!(step, DynamoStep::Read { .. }), "{step:?}");
        let nine = Fence::from_u128(9).text();
        let err = refused(check.observe(DynamoObserved::Read(Some(nine))));
        assert_eq!(err.code(), Code::Stale);
    }

    #[test]
    fn another_reason_of_the_register_reads_it_and_only_a_bad_fence_explains_it() {
        let mut check = started(0);
        let step = check.observe(cancelled(&["TypeError"], None));
        assert!(matches!(step, DynamoStep::Read { .. }), "{step:?}");
        let err = refused(check.observe(DynamoObserved::Read(Some("(a number)".into()))));
        assert_eq!(err.code(), Code::Corrupt);
        let mut check = started(0);
        check.observe(cancelled(&["ValidationError"], None));
        let step = check.observe(DynamoObserved::Read(Some(Fence::from_u128(5).text())));
        assert!(
            matches!(step, DynamoStep::Done(Verdict::Driver(_))),
            "{step:?}"
        );
    }

    #[test]
    fn a_reason_of_the_callers_items_is_the_drivers_error() {
        let mut check = started(1);
        let step = check.observe(cancelled(&[CONDITION_FAILED, "None"], None));
        let DynamoStep::Done(Verdict::Driver(err)) = step else {
            panic!("{step:?}")
        };
        assert!(err.message().contains(CONDITION_FAILED), "{err}");
        let mut check = started(1);
        let step = check.observe(cancelled(&["TransactionConflict", "None"], None));
        let DynamoStep::Done(Verdict::Driver(err)) = step else {
            panic!("{step:?}")
        };
        assert_eq!(err.code(), Code::Io);
        assert!(err.message().contains("retry"), "{err}");
    }

    #[test]
    fn too_many_items_or_a_bad_resource_is_invalid_before_any_call() {
        for (resource, items) in [("chats/42", 100), ("", 1)] {
            let mut check = DynamoCheck::new(REGISTER_TABLE, resource, Fence::from_u128(7), items);
            assert_eq!(refused(check.start()).code(), Code::Invalid);
        }
        let mut check = DynamoCheck::new(REGISTER_TABLE, "chats/42", Fence::from_u128(7), 99);
        assert!(matches!(check.start(), DynamoStep::Transact(_)));
        assert_eq!(
            check.observe(DynamoObserved::Written),
            DynamoStep::Done(Verdict::Accepted)
        );
    }
}
