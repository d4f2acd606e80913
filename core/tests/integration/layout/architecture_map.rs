//! The map is checked: docs/architecture.md's "Files" table names every
//! file of core/src, and every file it names is there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `.rs` files under `src`, as paths relative to it (`engine/queue.rs`).
fn files(src: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).unwrap();
                found.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found
}

/// The files the "Files" section of `doc` names: the first cell of each row
/// of its table, a path in backticks.
fn mapped(doc: &str) -> BTreeSet<String> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Files\n"))
        .expect("docs/architecture.md has a section \"## Files\"");
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once("` |"))
        .map(|(path, _)| path.to_string())
        .collect()
}

/// What is wrong between the files and the map, one line each.
fn differences(files: &BTreeSet<String>, mapped: &BTreeSet<String>) -> Vec<String> {
    let missing = files
        .difference(mapped)
        .map(|f| format!("{f} is not on the map"));
    let gone = mapped
        .difference(files)
        .map(|f| format!("{f} is on the map but not in core/src"));
    missing.chain(gone).collect()
}

fn core() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_map_names_every_file_of_core_and_no_other() {
    let doc = std::fs::read_to_string(core().join("../docs/architecture.md")).unwrap();
    let wrong = differences(&files(&core().join("src")), &mapped(&doc));
    assert!(
        wrong.is_empty(),
        "docs/architecture.md, section \"Files\", is not true:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn a_file_missing_from_the_map_and_a_file_gone_are_both_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("engine")).unwrap();
    for file in ["lib.rs", "engine/mod.rs", "engine/new.rs"] {
        std::fs::write(dir.path().join(file), "").unwrap();
    }
    let doc = "# A\n\n## Files\n\n| file | what |\n| --- | --- |\n\
               | `lib.rs` | root |\n| `engine/mod.rs` | engine |\n| `engine/old.rs` | gone |\n\n\
               ## Names\n\n| `engine/new.rs` | not in the section |\n";
    assert_eq!(
        differences(&files(dir.path()), &mapped(doc)),
        [
            "engine/new.rs is not on the map",
            "engine/old.rs is on the map but not in core/src",
        ]
    );
}
