//! The guard on stores that compare versions (GCS generations, Azure
//! ETags), core's own [`VersionedCheck`], against a model of one object:
//! its version (a counter: every write makes a new one), its fence
//! metadata; a read and a conditional put each atomic, their answers
//! delivered later, an answer possibly lost and the request made again,
//! a put answered 429 without the store acting and made again, and a hand
//! edit (an unguarded put of a malformed fence). The writer tells its
//! machine each attempt made again, as the bindings do
//! (`VersionedCheck::attempted`: no answer, or 429).
//!
//! Beyond the shared checks: a put that landed is never called `stale`
//! (which says nothing was written), one accepted landed, and a writer is
//! in doubt (`unavailable`) only after an attempt whose outcome it could
//! not know. A put made without its condition must be caught, and so must
//! a driver that does not tell its machine the attempts made again.

use super::explore::Model;
use super::verdicts::{all_equal, check_decided, check_ended, Seen};
use tinystore::guard::versioned_check::{
    Condition, VersionedCheck, VersionedObserved, VersionedStep, VersionedStore,
};
use tinystore::guard::Verdict;
use tinystore::Fence;

/// The object: its version and its fence metadata, or none.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Object {
    version: u32,
    fence: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Writer {
    fence: u128,
    check: VersionedCheck,
    request: Option<VersionedStep>,
    answer: Option<VersionedObserved>,
    verdict: Option<String>,
    /// The object's fence when this writer's put last landed.
    landed_over: u128,
    /// Whether a put of this writer landed.
    landed: bool,
    /// Whether an attempt of this writer's put went unanswered.
    unknown: bool,
}

#[derive(Clone, Debug)]
pub struct State {
    object: Option<Object>,
    writers: Vec<Writer>,
    retries: u8,
    throttles: u8,
    edits: u8,
    max_ever: u128,
}

pub struct Versioned {
    pub fences: Vec<u128>,
    /// The object's fence before the writers start, if there is one.
    pub before: Option<u128>,
    /// Whether puts carry their condition (as core's steps say); a broken
    /// guard puts unconditionally.
    pub conditional: bool,
    /// How many answers may be lost (the request made again).
    pub retries: u8,
    /// How many puts may be answered 429 without the store acting (the
    /// put made again).
    pub throttles: u8,
    /// Whether the writer tells its machine each attempt made again; a
    /// broken driver does not.
    pub tells_attempts: bool,
    pub edits: u8,
}

fn value(object: &Option<Object>) -> Option<u128> {
    let text = object.as_ref()?.fence.as_ref()?;
    (text.len() == 40)
        .then(|| Fence::parse(text).ok().map(Fence::get))
        .flatten()
}

impl Versioned {
    pub fn start(&self) -> State {
        let writers = self
            .fences
            .iter()
            .map(|&fence| {
                let mut check =
                    VersionedCheck::new(VersionedStore::Gcs, "b/r", Fence::from_u128(fence));
                let first = check.start();
                let mut w = Writer {
                    fence,
                    check,
                    request: None,
                    answer: None,
                    verdict: None,
                    landed_over: 0,
                    landed: false,
                    unknown: false,
                };
                w.take(first);
                w
            })
            .collect();
        let object = self.before.map(|f| Object {
            version: 1,
            fence: Some(Fence::from_u128(f).text()),
        });
        let max_ever = value(&object).unwrap_or(0);
        State {
            object,
            writers,
            retries: self.retries,
            throttles: self.throttles,
            edits: self.edits,
            max_ever,
        }
    }

    /// `w`'s put was made again after an attempt answered `status` (`None`:
    /// no answer): told to its machine, unless the driver is broken.
    fn made_again(&self, w: &mut Writer, status: Option<u16>) {
        w.unknown |= status.is_none();
        if self.tells_attempts {
            w.check.attempted(status);
        }
    }

    /// Runs `request` on the object: its effect and its answer.
    fn run(
        &self,
        object: &mut Option<Object>,
        w: &mut Writer,
        request: &VersionedStep,
    ) -> VersionedObserved {
        match request {
            VersionedStep::Read => match object {
                None => VersionedObserved::Absent,
                Some(o) => VersionedObserved::Found {
                    version: o.version.to_string(),
                    fence: o.fence.clone(),
                },
            },
            VersionedStep::Put {
                condition, fence, ..
            } => {
                let holds = match (condition, object.as_ref()) {
                    _ if !self.conditional => true,
                    (Condition::Absent, None) => true,
                    (Condition::Version(v), Some(o)) => *v == o.version.to_string(),
                    _ => false,
                };
                if !holds {
                    return VersionedObserved::ConditionFailed;
                }
                w.landed_over = w.landed_over.max(value(object).unwrap_or(0));
                w.landed = true;
                let version = object.as_ref().map_or(1, |o| o.version + 1);
                *object = Some(Object {
                    version,
                    fence: Some(fence.clone()),
                });
                VersionedObserved::Written
            }
            VersionedStep::Done(_) => unreachable!(),
        }
    }
}

impl Writer {
    fn take(&mut self, step: VersionedStep) {
        match step {
            VersionedStep::Done(verdict) => {
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

impl Model for Versioned {
    type State = State;

    fn next(&self, s: &State) -> Vec<State> {
        let mut next = Vec::new();
        for i in 0..s.writers.len() {
            let Some(request) = s.writers[i].request.clone() else {
                continue;
            };
            let mut t = s.clone();
            if s.writers[i].answer.is_none() {
                let answer = self.run(&mut t.object, &mut t.writers[i], &request);
                t.writers[i].answer = Some(answer);
                next.push(t);
                if s.throttles > 0 && matches!(request, VersionedStep::Put { .. }) {
                    // Answered 429, the store having done nothing: the
                    // client makes the put again later.
                    let mut t = s.clone();
                    t.throttles -= 1;
                    self.made_again(&mut t.writers[i], Some(429));
                    next.push(t);
                }
                continue;
            }
            let answer = t.writers[i].answer.take().unwrap();
            let step = t.writers[i].check.observe(answer);
            t.writers[i].take(step);
            next.push(t);
            if s.retries > 0 {
                // The answer is lost: the client makes the request again.
                let mut t = s.clone();
                t.retries -= 1;
                if matches!(request, VersionedStep::Put { .. }) {
                    self.made_again(&mut t.writers[i], None);
                }
                let answer = self.run(&mut t.object, &mut t.writers[i], &request);
                t.writers[i].answer = Some(answer);
                next.push(t);
            }
        }
        if s.edits > 0 && s.writers.iter().any(|w| w.verdict.is_none()) {
            let mut t = s.clone();
            t.edits -= 1;
            let version = s.object.as_ref().map_or(1, |o| o.version + 1);
            t.object = Some(Object {
                version,
                fence: Some("not-a-fence".into()),
            });
            next.push(t);
        }
        for t in &mut next {
            t.max_ever = t.max_ever.max(value(&t.object).unwrap_or(0));
        }
        next
    }

    fn check_step(&self, from: &State, to: &State) -> Result<(), String> {
        if let (Some(before), Some(after)) = (value(&from.object), value(&to.object)) {
            if after < before {
                return Err(format!(
                    "the object's fence went down from {before} to {after}"
                ));
            }
        }
        check_decided(&seen(&from.writers), &seen(&to.writers), to.max_ever)?;
        for (w, before) in to.writers.iter().zip(&from.writers) {
            if before.verdict.is_some() {
                continue;
            }
            match w.verdict.as_deref() {
                Some("stale") if w.landed => {
                    return Err(format!(
                        "fence {} was called stale though its put landed",
                        w.fence
                    ))
                }
                Some("accepted") if !w.landed => {
                    return Err(format!(
                        "fence {} was accepted though no put of it landed",
                        w.fence
                    ))
                }
                Some("unavailable") if !w.unknown => {
                    return Err(format!(
                        "fence {} was called in doubt though every attempt was answered",
                        w.fence
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn check_end(&self, s: &State) -> Result<(), String> {
        let edited = s.edits < self.edits;
        check_ended(
            &seen(&s.writers),
            edited,
            all_equal(&self.fences, self.before),
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
            may_doubt: w.unknown,
        })
        .collect()
}
