//! The SQL guard's protocol, core's own [`SqlCheck`], against a model of
//! the register row: each statement atomic (as the upsert is, and as the
//! row's lock makes it on PostgreSQL), its answer delivered later, an
//! answer possibly lost and the statement run again, a database that
//! counts an unchanged row as no change (MySQL), and a hand edit of the
//! row. The statement's `where` is modelled as core writes it; a broken
//! one (none at all) must be caught.

use super::explore::Model;
use super::verdicts::{all_equal, check_decided, check_ended, Seen};
use tinystore::guard::{Dialect, Placeholders, SqlCheck, SqlObserved, SqlStep, Verdict};
use tinystore::Fence;

/// How the modelled database runs the upsert's update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// As core's statement: when the recorded fence is well formed and at
    /// most ours.
    Guarded,
    /// A broken statement: always.
    Always,
}

#[derive(Clone, Debug)]
pub struct Writer {
    fence: u128,
    check: SqlCheck,
    request: Option<SqlStep>,
    answer: Option<SqlObserved>,
    verdict: Option<String>,
    /// The largest fence recorded when this writer's upsert last ran.
    landed_over: u128,
}

#[derive(Clone, Debug)]
pub struct State {
    row: Option<String>,
    writers: Vec<Writer>,
    retries: u8,
    edits: u8,
    max_ever: u128,
}

pub struct Register {
    pub fences: Vec<u128>,
    pub recorded: Option<u128>,
    pub unchanged_is_zero: bool,
    pub update: Update,
    pub retries: u8,
    pub edits: u8,
}

fn value(row: &Option<String>) -> Option<u128> {
    let text = row.as_ref()?;
    (text.len() == 40)
        .then(|| Fence::parse(text).ok().map(Fence::get))
        .flatten()
}

impl Register {
    pub fn start(&self) -> State {
        let writers = self
            .fences
            .iter()
            .map(|&fence| {
                let mut check = SqlCheck::new(
                    Dialect::Sqlite,
                    Placeholders::Question,
                    "r",
                    Fence::from_u128(fence),
                    true,
                );
                let first = check.start();
                let mut w = Writer {
                    fence,
                    check,
                    request: None,
                    answer: None,
                    verdict: None,
                    landed_over: 0,
                };
                w.take(first);
                w
            })
            .collect();
        let row = self.recorded.map(|f| Fence::from_u128(f).text());
        let max_ever = value(&row).unwrap_or(0);
        State {
            row,
            writers,
            retries: self.retries,
            edits: self.edits,
            max_ever,
        }
    }

    /// Runs `request` on the row: its effect and its answer.
    fn run(&self, row: &mut Option<String>, w: &mut Writer, request: &SqlStep) -> SqlObserved {
        match request {
            SqlStep::Execute { params, .. } => {
                w.landed_over = w.landed_over.max(value(row).unwrap_or(0));
                let ours = &params[1];
                let update = match (row.as_ref(), self.update) {
                    (None, _) | (_, Update::Always) => true,
                    (Some(text), Update::Guarded) => value(row).is_some() && text <= ours,
                };
                if !update {
                    return SqlObserved::Changed(0);
                }
                let unchanged = row.as_ref() == Some(ours);
                *row = Some(ours.clone());
                SqlObserved::Changed(if unchanged && self.unchanged_is_zero {
                    0
                } else {
                    1
                })
            }
            SqlStep::Query { .. } => SqlObserved::Row(row.clone()),
            SqlStep::Done(_) => unreachable!(),
        }
    }
}

impl Writer {
    fn take(&mut self, step: SqlStep) {
        match step {
            SqlStep::Done(verdict) => {
                self.verdict = Some(match verdict {
                    Verdict::Accepted => "accepted".to_string(),
                    Verdict::Refused(e) | Verdict::Driver(e) => e.code().to_string(),
                });
                self.request = None;
            }
            step => self.request = Some(step),
        }
    }
}

impl Model for Register {
    type State = State;

    fn next(&self, s: &State) -> Vec<State> {
        let mut next = Vec::new();
        for i in 0..s.writers.len() {
            let Some(request) = s.writers[i].request.clone() else {
                continue;
            };
            let mut t = s.clone();
            if s.writers[i].answer.is_none() {
                let answer = self.run(&mut t.row, &mut t.writers[i], &request);
                t.writers[i].answer = Some(answer);
                next.push(t);
                continue;
            }
            let answer = t.writers[i].answer.take().unwrap();
            let step = t.writers[i].check.observe(answer);
            t.writers[i].take(step);
            next.push(t);
            if s.retries > 0 {
                let mut t = s.clone();
                t.retries -= 1;
                let answer = self.run(&mut t.row, &mut t.writers[i], &request);
                t.writers[i].answer = Some(answer);
                next.push(t);
            }
        }
        if s.edits > 0 && s.writers.iter().any(|w| w.verdict.is_none()) {
            let mut t = s.clone();
            t.edits -= 1;
            t.row = Some("not-a-fence".into());
            next.push(t);
        }
        for t in &mut next {
            t.max_ever = t.max_ever.max(value(&t.row).unwrap_or(0));
        }
        next
    }

    fn check_step(&self, from: &State, to: &State) -> Result<(), String> {
        if let (Some(before), Some(after)) = (value(&from.row), value(&to.row)) {
            if after < before {
                return Err(format!(
                    "the recorded fence went down from {before} to {after}"
                ));
            }
        }
        check_decided(&seen(&from.writers), &seen(&to.writers), to.max_ever)
    }

    fn check_end(&self, s: &State) -> Result<(), String> {
        let edited = s.edits < self.edits;
        check_ended(
            &seen(&s.writers),
            edited,
            all_equal(&self.fences, self.recorded),
        )
    }
}

/// The writers as the shared checks see them.
fn seen(writers: &[Writer]) -> Vec<Seen<'_>> {
    writers
        .iter()
        .map(|w| Seen {
            fence: w.fence,
            landed_over: w.landed_over,
            verdict: w.verdict.as_deref(),
            // A lost answer is made again inside the caller's transaction,
            // which nothing outside sees before its commit: never in doubt.
            may_doubt: false,
        })
        .collect()
}
