//! The guard on stores that compare versions (GCS generations, Azure
//! ETags), core's own [`VersionedCheck`], against a model of one object:
//! its version (a counter: every write makes a new one), its fence
//! metadata; a read and a conditional put each atomic, their answers
//! delivered later, an answer possibly lost and the request made again,
//! and a hand edit (an unguarded put of a malformed fence). A put made
//! without its condition must be caught.

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
}

#[derive(Clone, Debug)]
pub struct State {
    object: Option<Object>,
    writers: Vec<Writer>,
    retries: u8,
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
    pub retries: u8,
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
            edits: self.edits,
            max_ever,
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
        check_decided(&seen(&from.writers), &seen(&to.writers), to.max_ever)
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
        })
        .collect()
}
