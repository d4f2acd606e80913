//! The guard's protocols, model-checked: core's own state machines
//! (SqlCheck, ObjectWrite, ObjectRead, VersionedCheck) driven against
//! models of a register row, of S3 and of an object whose puts are
//! conditional on its version (GCS, Azure), every interleaving of three writers explored, with
//! answers lost and requests made again, puts answered 429 and made
//! again, fences that tie, bodies (and so S3 ETags) that repeat, and hand
//! edits. In every reachable state the fence readers see never goes down,
//! no write is accepted after a larger fence was recorded, a refused write
//! always met a larger fence, a versioned put that landed is never called
//! stale, writers of equal fences are all accepted, and every run ends.
//! The guard's earlier in-place S3 protocol, an upsert without its
//! `where`, a put without its condition and a driver that does not tell
//! its machine the attempts made again are explored too, and must be
//! caught.

mod explore;
mod object;
mod sql;
mod verdicts;
mod versioned;

use explore::{explore, Explored, Model};

fn holds<M: Model>(name: &str, model: &M, start: M::State) -> Explored {
    let found = explore(model, start, 200);
    if let Some((why, run)) = &found.violation {
        panic!("{name}: {why}\nthe run:\n{}", run.join("\n"));
    }
    assert!(found.ends > 0, "{name}: no run ended");
    eprintln!(
        "{name}: {} states, {} ends, longest run {}",
        found.states, found.ends, found.longest
    );
    found
}

fn caught<M: Model>(name: &str, model: &M, start: M::State) -> String {
    let found = explore(model, start, 200);
    let (why, _) = found
        .violation
        .unwrap_or_else(|| panic!("{name}: the explorer found no violation in a broken protocol"));
    eprintln!("{name}: caught: {why}");
    why
}

#[test]
fn objects_three_writers_whose_bodies_repeat_and_a_lost_answer() {
    let model = object::Objects {
        writers: vec![(101, 'X'), (102, 'Y'), (103, 'X')],
        reader: false,
        retries: 1,
        edits: 0,
        before: vec![(100, 'X')],
        tombstones: false,
    };
    let found = holds("objects/3 writers", &model, model.start());
    assert!(found.states > 1000, "too few states: {found:?}");
}

#[test]
fn objects_tied_fences_tombstones_and_a_reader() {
    let model = object::Objects {
        writers: vec![(5, 'X'), (5, 'Y'), (6, 'X')],
        reader: true,
        retries: 0,
        edits: 0,
        before: vec![],
        tombstones: true,
    };
    holds("objects/ties, tombstones, reader", &model, model.start());
}

#[test]
fn objects_a_guarded_delete_retried_after_a_lost_answer() {
    // The second writer deletes (a tombstone); every answer may be lost
    // once and the request made again, before and after the others.
    let model = object::Objects {
        writers: vec![(5, 'X'), (6, 'Y'), (7, 'X')],
        reader: false,
        retries: 1,
        edits: 0,
        before: vec![(4, 'Z')],
        tombstones: true,
    };
    holds("objects/delete, lost answers", &model, model.start());
}

#[test]
fn objects_equal_fences_are_all_accepted_even_with_lost_answers() {
    let model = object::Objects {
        writers: vec![(7, 'X'), (7, 'Y'), (7, 'X')],
        reader: false,
        retries: 2,
        edits: 0,
        before: vec![(3, 'Z')],
        tombstones: false,
    };
    holds("objects/equal", &model, model.start());
}

#[test]
fn objects_a_hand_edit_ends_in_corrupt_never_in_harm() {
    let model = object::Objects {
        writers: vec![(1, 'X'), (2, 'Y')],
        reader: true,
        retries: 0,
        edits: 1,
        before: vec![],
        tombstones: false,
    };
    holds("objects/hand edit", &model, model.start());
}

#[test]
fn the_in_place_etag_protocol_is_caught_landing_under_a_larger_fence() {
    let model = object::InPlace {
        before: ('X', 100),
        writers: vec![(101, 'Z'), (102, 'Y'), (103, 'X')],
    };
    let why = caught("in place", &model, model.start());
    assert!(why.contains("landed over"), "{why}");
}

fn register(
    fences: Vec<u128>,
    recorded: Option<u128>,
    unchanged_is_zero: bool,
    update: sql::Update,
) -> sql::Register {
    sql::Register {
        fences,
        recorded,
        unchanged_is_zero,
        update,
        retries: 1,
        edits: 0,
    }
}

#[test]
fn sql_three_writers_ties_and_lost_answers() {
    for unchanged_is_zero in [false, true] {
        let model = register(
            vec![4, 5, 5],
            Some(3),
            unchanged_is_zero,
            sql::Update::Guarded,
        );
        holds("sql/3 writers", &model, model.start());
        let model = register(vec![6, 6, 6], None, unchanged_is_zero, sql::Update::Guarded);
        holds("sql/equal", &model, model.start());
    }
}

#[test]
fn sql_a_hand_edited_row_ends_in_corrupt_never_in_harm() {
    let mut model = register(vec![1, 2, 3], None, false, sql::Update::Guarded);
    model.edits = 1;
    model.retries = 0;
    holds("sql/hand edit", &model, model.start());
}

#[test]
fn sql_an_upsert_without_its_where_is_caught() {
    let model = register(vec![1, 2, 3], None, false, sql::Update::Always);
    let why = caught("sql/no where", &model, model.start());
    assert!(
        why.contains("went down") || why.contains("accepted though"),
        "{why}"
    );
}

fn versioned(fences: Vec<u128>, before: Option<u128>, conditional: bool) -> versioned::Versioned {
    versioned::Versioned {
        fences,
        before,
        conditional,
        retries: 1,
        throttles: 0,
        tells_attempts: true,
        edits: 0,
    }
}

#[test]
fn versioned_three_writers_ties_and_lost_answers() {
    let model = versioned(vec![4, 5, 5], Some(3), true);
    let found = holds("versioned/3 writers", &model, model.start());
    assert!(found.states > 1000, "too few states: {found:?}");
    let model = versioned(vec![6, 6, 6], None, true);
    holds("versioned/equal", &model, model.start());
    let model = versioned(vec![9, 7, 8], Some(8), true);
    holds("versioned/one late", &model, model.start());
}

#[test]
fn versioned_a_429_and_a_lost_answer_are_told_never_stale_after_landing() {
    let mut model = versioned(vec![4, 5], Some(3), true);
    model.throttles = 1;
    let found = holds("versioned/429 and a lost answer", &model, model.start());
    assert!(found.states > 200, "too few states: {found:?}");
    let mut model = versioned(vec![6, 5, 5], None, true);
    model.throttles = 2;
    holds("versioned/429s, 3 writers", &model, model.start());
}

#[test]
fn versioned_a_driver_that_does_not_tell_the_attempts_is_caught() {
    let mut model = versioned(vec![4, 5], Some(3), true);
    model.tells_attempts = false;
    let why = caught("versioned/attempts untold", &model, model.start());
    assert!(why.contains("called stale though its put landed"), "{why}");
}

#[test]
fn versioned_a_hand_edit_ends_in_corrupt_never_in_harm() {
    let mut model = versioned(vec![1, 2, 3], None, true);
    model.edits = 1;
    model.retries = 0;
    holds("versioned/hand edit", &model, model.start());
}

#[test]
fn versioned_a_put_without_its_condition_is_caught() {
    let model = versioned(vec![1, 2, 3], None, false);
    let why = caught("versioned/no condition", &model, model.start());
    assert!(
        why.contains("went down") || why.contains("landed over"),
        "{why}"
    );
}
