//! The guard cases of vectors/behaviour.json, read once for the SQLite and
//! the PostgreSQL runners.

use serde_json::Value;
use tinystore::{Code, Error, Fence};

/// One case of the vectors' "guard" section.
pub struct Case {
    pub id: String,
    pub table: bool,
    pub recorded: Option<String>,
    pub resource: String,
    pub fence: Fence,
    pub expect: String,
    pub recorded_after: Option<String>,
    pub largest: Option<u128>,
    pub message_has: Option<String>,
}

/// Every guard case.
pub fn cases() -> Vec<Case> {
    let all: Value = serde_json::from_str(include_str!("../../../../vectors/behaviour.json"))
        .expect("vectors/behaviour.json is JSON");
    let cases = all["guard"]["cases"].as_array().expect("guard cases");
    assert!(cases.len() >= 10, "the guard vectors have lost cases");
    cases.iter().map(case).collect()
}

fn case(v: &Value) -> Case {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    let resource = match v.get("resource") {
        None => "chats/42".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(r) => r["repeat"]
            .as_str()
            .unwrap()
            .repeat(r["times"].as_u64().unwrap() as usize),
    };
    Case {
        id: text("id").unwrap(),
        table: v.get("table").and_then(Value::as_bool).unwrap_or(true),
        recorded: text("recorded"),
        resource,
        fence: Fence::parse(&text("fence").unwrap()).unwrap(),
        expect: text("expect").unwrap(),
        recorded_after: text("recorded_after"),
        largest: text("largest").map(|l| l.parse().unwrap()),
        message_has: text("message_has"),
    }
}

impl Case {
    /// Checks the check's outcome and what the notes table and register
    /// hold after (`notes`: rows in notes; `register`: the resource's row).
    pub fn judge(&self, outcome: Result<(), Error>, notes: i64, register: Option<String>) {
        let id = &self.id;
        if self.expect == "accepted" {
            outcome.unwrap_or_else(|e| panic!("{id}: refused: {e}"));
            assert_eq!(notes, 1, "{id}: the accepted write's own row is missing");
            assert_eq!(register, self.recorded_after, "{id}: register");
            return;
        }
        let err = outcome.expect_err(id);
        let want = Code::parse(&self.expect).unwrap_or_else(|| panic!("{id}: unknown code"));
        assert_eq!(err.code(), want, "{id}: {err}");
        if let Some(part) = &self.message_has {
            assert!(err.message().contains(part.as_str()), "{id}: {err}");
        }
        if let Some(largest) = self.largest {
            let stale = err
                .stale_detail()
                .expect("a stale error carries its fences");
            assert_eq!(
                (stale.largest, stale.fence),
                (largest, self.fence.get()),
                "{id}"
            );
            assert_eq!(stale.resource, self.resource, "{id}");
        }
        assert_eq!(notes, 0, "{id}: a refused write left its own row");
        if self.table {
            let before = self.recorded.clone();
            assert_eq!(
                register, before,
                "{id}: a refused write changed the register"
            );
        }
    }
}
