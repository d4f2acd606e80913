//! `tinystore demo` as a user runs it: a real process, a real SQLite chat.db whose
//! guard refuses the late write.

use std::process::Command;

#[test]
fn the_demo_plays_the_three_steps_and_the_late_write_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_tinystore"))
        .args(["demo", "--ttl-ms", "100"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fence_after = |marker: &str| -> tinystore::Fence {
        let at = stdout
            .find(marker)
            .unwrap_or_else(|| panic!("{marker:?} in {stdout}"));
        let digits: String = stdout[at + marker.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let a = fence_after("Worker A holds chat 42 with fence ");
    let b = fence_after("Worker B holds the key with fence ");
    assert!(a < b, "B's fence is larger: {a} < {b}");
    assert_eq!(a.epoch(), b.epoch());
    assert!(
        stdout.contains(&format!("The guard refuses it (stale): {a} < {b}")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "summary = \"summary by B\"; tinystore_fences keeps chats/42 = {}",
            b.text()
        )),
        "{stdout}"
    );
}
