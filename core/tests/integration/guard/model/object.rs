//! The object-storage guard's protocol, core's own [`ObjectWrite`] and
//! [`ObjectRead`], against a model of S3: every request atomic at the
//! store, its answer delivered later (so requests of several writers
//! interleave in every order), an answer possibly lost and the request
//! retried (made again later, its new answer delivered), and a hand edit
//! that puts a stray object among the fences.
//!
//! Beside it, the protocol the guard had before (a HEAD, then a PUT with
//! `If-Match` on the ETag, an ETag being the body's hash as S3 makes it):
//! the explorer must find its hole, a smaller fence landing over a larger
//! one once a body repeats.

use super::explore::Model;
use std::collections::BTreeMap;
use tinystore::guard::object_layout::{fence_key, fences_prefix, FENCES_DIR};
use tinystore::guard::{
    DriverFailure, ObjectObserved, ObjectRead, ObjectStep, ObjectWrite, Verdict,
};
use tinystore::{Code, Fence};

const KEY: &str = "chats/42";

/// An object: its body (one letter) and whether it is a tombstone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obj {
    body: char,
    tombstone: bool,
}

/// A writer, or the reader, with its machine and its request in flight.
#[derive(Clone, Debug)]
pub struct Actor {
    fence: u128,
    body: char,
    writer: Option<ObjectWrite>,
    reader: Option<ObjectRead>,
    /// The request made, awaiting its answer's delivery.
    request: Option<ObjectStep>,
    /// Its answer, once the store made it.
    answer: Option<ObjectObserved>,
    verdict: Option<String>,
    /// The largest fence readers saw when this writer's put last landed.
    landed_over: u128,
    /// The reader: the fence readers saw when it started.
    seen_at_start: u128,
}

#[derive(Clone, Debug)]
pub struct State {
    store: BTreeMap<String, Obj>,
    actors: Vec<Actor>,
    retries: u8,
    edits: u8,
    /// The largest fence a reader has ever seen.
    max_ever: u128,
}

/// The system: writers (fence, body), whether a reader runs beside them,
/// how many answers may be lost, how many hand edits may happen.
pub struct Objects {
    pub writers: Vec<(u128, char)>,
    pub reader: bool,
    pub retries: u8,
    pub edits: u8,
    /// Objects there before: (fence, body).
    pub before: Vec<(u128, char)>,
    pub tombstones: bool,
}

/// The fence a reader sees: the largest well-formed one listed.
fn visible(store: &BTreeMap<String, Obj>) -> u128 {
    let prefix = fences_prefix(KEY);
    store
        .keys()
        .filter_map(|k| Fence::parse(k.strip_prefix(&prefix)?).ok())
        .map(Fence::get)
        .max()
        .unwrap_or(0)
}

impl Objects {
    pub fn start(&self) -> State {
        let mut store = BTreeMap::new();
        for (fence, body) in &self.before {
            store.insert(
                fence_key(KEY, Fence::from_u128(*fence)),
                Obj {
                    body: *body,
                    tombstone: false,
                },
            );
        }
        let mut actors: Vec<Actor> = self
            .writers
            .iter()
            .enumerate()
            .map(|(i, (fence, body))| {
                let f = Fence::from_u128(*fence);
                let mut w = if self.tombstones && i % 2 == 1 {
                    ObjectWrite::delete("b", KEY, f)
                } else {
                    ObjectWrite::put("b", KEY, f, vec![])
                };
                let first = w.start();
                actor(*fence, *body, Some(w), None, first)
            })
            .collect();
        if self.reader {
            let mut r = ObjectRead::new("b", KEY);
            let first = r.start();
            actors.push(actor(0, '-', None, Some(r), first));
        }
        let max_ever = visible(&store);
        for a in &mut actors {
            a.seen_at_start = max_ever;
        }
        State {
            store,
            actors,
            retries: self.retries,
            edits: self.edits,
            max_ever,
        }
    }
}

fn actor(
    fence: u128,
    body: char,
    writer: Option<ObjectWrite>,
    reader: Option<ObjectRead>,
    first: ObjectStep,
) -> Actor {
    let mut a = Actor {
        fence,
        body,
        writer,
        reader,
        request: None,
        answer: None,
        verdict: None,
        landed_over: 0,
        seen_at_start: 0,
    };
    a.take(first);
    a
}

impl Actor {
    fn take(&mut self, step: ObjectStep) {
        match step {
            ObjectStep::Done(verdict) => {
                self.verdict = Some(match verdict {
                    Verdict::Accepted => "accepted".to_string(),
                    Verdict::Refused(e) | Verdict::Driver(e) => e.code().to_string(),
                });
                self.request = None;
            }
            step => self.request = Some(step),
        }
    }

    fn observe(&mut self, answer: ObjectObserved) -> ObjectStep {
        match (&mut self.writer, &mut self.reader) {
            (Some(w), _) => w.observe(answer),
            (_, Some(r)) => r.observe(answer),
            _ => unreachable!(),
        }
    }

    fn tombstone(&self) -> bool {
        self.writer.as_ref().is_some_and(ObjectWrite::is_tombstone)
    }

    fn read(&self) -> Option<Fence> {
        self.reader.as_ref().and_then(ObjectRead::found)
    }
}

/// Makes `request` at the store: its effect and its answer.
fn make(store: &mut BTreeMap<String, Obj>, a: &mut Actor, request: &ObjectStep) -> ObjectObserved {
    match request {
        ObjectStep::List { prefix } => ObjectObserved::Listed(
            store
                .keys()
                .filter(|k| k.starts_with(prefix.as_str()))
                .cloned()
                .collect(),
        ),
        ObjectStep::Put { key, .. } => {
            a.landed_over = a.landed_over.max(visible(store));
            store.insert(
                key.clone(),
                Obj {
                    body: a.body,
                    tombstone: a.tombstone(),
                },
            );
            ObjectObserved::Written
        }
        ObjectStep::Delete { key } => {
            store.remove(key);
            ObjectObserved::Deleted
        }
        ObjectStep::Get { key } => match store.get(key) {
            Some(obj) => {
                let metadata = if obj.tombstone {
                    vec![("tinystore-deleted".to_string(), "true".to_string())]
                } else {
                    vec![]
                };
                ObjectObserved::Got { metadata }
            }
            None => ObjectObserved::Failed(DriverFailure {
                http_status: Some(404),
                ..DriverFailure::new("NoSuchKey")
            }),
        },
        ObjectStep::Done(_) => unreachable!(),
    }
}

impl Model for Objects {
    type State = State;

    fn next(&self, s: &State) -> Vec<State> {
        let mut next = Vec::new();
        for i in 0..s.actors.len() {
            let a = &s.actors[i];
            let Some(request) = a.request.clone() else {
                continue;
            };
            if a.answer.is_none() {
                // The store makes the request.
                let mut t = s.clone();
                let answer = make(&mut t.store, &mut t.actors[i], &request);
                t.actors[i].answer = Some(answer);
                next.push(t);
                continue;
            }
            // The answer is delivered...
            let mut t = s.clone();
            let answer = t.actors[i].answer.take().unwrap();
            let step = t.actors[i].observe(answer);
            t.actors[i].take(step);
            next.push(t);
            // ... or lost, and the request made again.
            if s.retries > 0 {
                let mut t = s.clone();
                t.retries -= 1;
                let answer = make(&mut t.store, &mut t.actors[i], &request);
                t.actors[i].answer = Some(answer);
                next.push(t);
            }
        }
        let running = s.actors.iter().any(|a| a.verdict.is_none());
        if s.edits > 0 && running {
            let mut t = s.clone();
            t.edits -= 1;
            t.store.insert(
                format!("{KEY}{FENCES_DIR}notes.txt"),
                Obj {
                    body: '!',
                    tombstone: false,
                },
            );
            next.push(t);
        }
        for t in &mut next {
            t.max_ever = t.max_ever.max(visible(&t.store));
        }
        next
    }

    fn check_step(&self, from: &State, to: &State) -> Result<(), String> {
        let (before, after) = (visible(&from.store), visible(&to.store));
        if after < before {
            return Err(format!(
                "the fence readers see went down from {before} to {after}"
            ));
        }
        for (a, was) in to.actors.iter().zip(&from.actors) {
            if was.verdict.is_some() || a.verdict.is_none() {
                continue;
            }
            let verdict = a.verdict.as_deref().unwrap();
            if a.reader.is_some() {
                if verdict == "accepted" && a.read().is_some_and(|f| f.get() < a.seen_at_start) {
                    return Err(format!(
                        "a read gave fence {:?} after fence {} was seen",
                        a.read(),
                        a.seen_at_start
                    ));
                }
                continue;
            }
            if verdict == "accepted" && a.landed_over > a.fence {
                return Err(format!(
                    "fence {} was accepted though its put landed after fence {}",
                    a.fence, a.landed_over
                ));
            }
            if verdict == Code::Stale.to_string() && to.max_ever <= a.fence {
                return Err(format!(
                    "fence {} was refused though no larger fence was ever stored",
                    a.fence
                ));
            }
        }
        Ok(())
    }

    fn check_end(&self, s: &State) -> Result<(), String> {
        if let Some(a) = s.actors.iter().find(|a| a.verdict.is_none()) {
            return Err(format!("a run ended with fence {} undecided", a.fence));
        }
        let edited = s.edits < self.edits;
        for a in &s.actors {
            let v = a.verdict.as_deref().unwrap();
            let fine = matches!(v, "accepted" | "stale")
                || (edited && v == "corrupt")
                || (a.reader.is_some() && v == "limit");
            if !fine {
                return Err(format!("fence {} ended {v}", a.fence));
            }
        }
        let accepted = s
            .actors
            .iter()
            .filter(|a| a.reader.is_none() && a.verdict.as_deref() == Some("accepted"));
        let largest = accepted.map(|a| a.fence).max().unwrap_or(0);
        if !edited && visible(&s.store) < largest {
            return Err(format!(
                "fence {largest} was accepted, but readers see {}",
                visible(&s.store)
            ));
        }
        let all_equal = self.writers.iter().all(|w| w.0 == self.writers[0].0)
            && self.before.iter().all(|b| b.0 <= self.writers[0].0);
        if all_equal
            && !edited
            && s.actors
                .iter()
                .any(|a| a.reader.is_none() && a.verdict.as_deref() != Some("accepted"))
        {
            return Err("writers of one fence were not all accepted".into());
        }
        Ok(())
    }
}

/// The guard's earlier protocol: HEAD, then PUT with `If-Match` on the
/// ETag read (`If-None-Match: *` when none), a 412 reading again; an
/// object in place, its ETag the hash of its body.
pub struct InPlace {
    pub before: (char, u128),
    pub writers: Vec<(u128, char)>,
}

#[derive(Clone, Debug)]
pub struct InPlaceState {
    /// The object: (body, fence); its ETag is its body.
    object: (char, u128),
    /// Each writer: its phase (0 head, 1 put, 2 done) and the ETag read.
    writers: Vec<(u8, char)>,
}

impl InPlace {
    pub fn start(&self) -> InPlaceState {
        InPlaceState {
            object: self.before,
            writers: vec![(0, ' '); self.writers.len()],
        }
    }
}

impl Model for InPlace {
    type State = InPlaceState;

    fn next(&self, s: &InPlaceState) -> Vec<InPlaceState> {
        let mut next = Vec::new();
        for (i, &(phase, etag)) in s.writers.iter().enumerate() {
            let (fence, body) = self.writers[i];
            let mut t = s.clone();
            match phase {
                // HEAD: a larger fence refuses; the object's own body was
                // refused as invalid; else remember the ETag.
                0 if s.object.1 > fence || s.object.0 == body => t.writers[i].0 = 2,
                0 => t.writers[i] = (1, s.object.0),
                // PUT If-Match: lands when the ETag is still the one read.
                1 if s.object.0 == etag => {
                    t.object = (body, fence);
                    t.writers[i].0 = 2;
                }
                1 => t.writers[i].0 = 0,
                _ => continue,
            }
            next.push(t);
        }
        next
    }

    fn check_step(&self, from: &InPlaceState, to: &InPlaceState) -> Result<(), String> {
        if to.object.1 < from.object.1 {
            return Err(format!(
                "fence {} landed over fence {}",
                to.object.1, from.object.1
            ));
        }
        Ok(())
    }

    fn check_end(&self, _: &InPlaceState) -> Result<(), String> {
        Ok(())
    }
}
