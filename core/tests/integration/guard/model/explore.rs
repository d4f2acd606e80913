//! A small exhaustive explorer: every interleaving of a model's actions
//! from its start, depth first, each state visited once (states are told
//! apart by their `Debug` text), with a check at every transition and at
//! every end.

use std::collections::HashSet;
use std::fmt::Debug;

/// A system to explore: its states, the actions enabled in each, and what
/// must hold.
pub trait Model {
    type State: Clone + Debug;
    /// Every action enabled in `state`, as the state it leads to. None:
    /// the run ended.
    fn next(&self, state: &Self::State) -> Vec<Self::State>;
    /// What must hold across one transition; `Err` names the violation.
    fn check_step(&self, from: &Self::State, to: &Self::State) -> Result<(), String>;
    /// What must hold where a run ends.
    fn check_end(&self, state: &Self::State) -> Result<(), String>;
}

/// What the exploration found.
#[derive(Debug)]
pub struct Explored {
    pub states: usize,
    pub ends: usize,
    pub longest: usize,
    /// The first violation, with the run that led to it.
    pub violation: Option<(String, Vec<String>)>,
}

/// Explores every run of `model` from `start`, up to `max_depth` steps (a
/// run longer than that is itself a violation: every run must end).
pub fn explore<M: Model>(model: &M, start: M::State, max_depth: usize) -> Explored {
    let mut seen = HashSet::new();
    let mut found = Explored {
        states: 0,
        ends: 0,
        longest: 0,
        violation: None,
    };
    let mut path = vec![start];
    walk(model, &mut path, &mut seen, &mut found, max_depth);
    found
}

fn walk<M: Model>(
    model: &M,
    path: &mut Vec<M::State>,
    seen: &mut HashSet<String>,
    found: &mut Explored,
    max_depth: usize,
) {
    if found.violation.is_some() {
        return;
    }
    let state = path.last().unwrap().clone();
    if !seen.insert(format!("{state:?}")) {
        return;
    }
    found.states += 1;
    found.longest = found.longest.max(path.len());
    let fail = |found: &mut Explored, why: String, path: &[M::State]| {
        found.violation = Some((why, path.iter().map(|s| format!("{s:?}")).collect()));
    };
    if path.len() > max_depth {
        return fail(found, format!("a run passed {max_depth} steps"), path);
    }
    let next = model.next(&state);
    if next.is_empty() {
        found.ends += 1;
        if let Err(why) = model.check_end(&state) {
            fail(found, why, path);
        }
        return;
    }
    for to in next {
        if let Err(why) = model.check_step(&state, &to) {
            path.push(to);
            return fail(found, why, path);
        }
        path.push(to);
        walk(model, path, seen, found, max_depth);
        path.pop();
        if found.violation.is_some() {
            return;
        }
    }
}
