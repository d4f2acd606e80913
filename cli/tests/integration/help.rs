//! `tinystore --help` lists each command on one line; `tinystore CMD --help`
//! gives its long text with an example.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tinystore");

const COMMANDS: [&str; 9] = [
    "demo", "serve", "hold", "elect", "leader", "status", "watch", "backup", "restore",
];

fn help(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "tinystore {args:?} failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of the "Commands:" section, up to the blank line that ends it.
fn command_lines(help: &str) -> Vec<&str> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .collect()
}

#[test]
fn the_list_of_commands_has_one_line_each() {
    let help = help(&["--help"]);
    let lines = command_lines(&help);
    let named: Vec<&str> = lines
        .iter()
        .map(|line| line.split_whitespace().next().unwrap_or(""))
        .collect();
    let mut expected = COMMANDS.to_vec();
    expected.push("help");
    assert_eq!(named, expected, "one line per command, in order:\n{help}");
    for line in lines {
        assert!(line.len() <= 80, "a line wider than 80 columns: {line:?}");
    }
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in COMMANDS {
        let long = help(&[command, "--help"]);
        assert!(
            long.contains(&format!("Example: tinystore {command}")),
            "{command} --help has no example:\n{long}"
        );
        assert!(
            long.lines().count() > command_lines(&help(&["--help"])).len(),
            "{command} --help is no longer than the list"
        );
    }
}
