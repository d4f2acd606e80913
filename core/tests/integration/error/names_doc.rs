//! docs/locks.md's table of each code's error per language is the core's
//! table: every code has its row, with the names `Code` gives.

use tinystore::binding::CodeNames;
use tinystore::Code;

#[test]
fn the_docs_name_each_codes_error_as_the_core_does() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/locks.md");
    let doc = std::fs::read_to_string(path).unwrap();
    for code in Code::ALL {
        let first_cell = format!("| `{code}` ");
        let row = doc
            .lines()
            .filter(|line| line.starts_with(&first_cell))
            .find(|line| line.contains(&format!("`{}`", code.python_class())))
            .unwrap_or_else(|| panic!("docs/locks.md has no row of names for `{code}`"));
        for name in [
            code.python_class().to_string(),
            code.node_class().to_string(),
            format!("Err{}", code.go_name()),
            format!("Code{}", code.go_name()),
        ] {
            assert!(
                row.contains(&format!("`{name}`")),
                "docs/locks.md's row for `{code}` does not name `{name}`: {row}"
            );
        }
    }
}
