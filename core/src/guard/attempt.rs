//! One attempt of a guarded write, as its answer tells: whether the write
//! may have landed though the caller cannot know. Every guard whose client
//! makes a write again (DynamoDB's, GCS's and Azure's SDKs in every
//! language) asks this one rule, so that they agree on when a refusal is
//! `stale` (nothing written) and when it is `unavailable` (in doubt).

/// Whether an attempt answered with `status` (`None`: no answer came, a
/// dropped connection or a timeout) leaves its outcome unknown: with no
/// answer, a 5xx or a 408 the server may have acted on the attempt. Any
/// other status is the server's answer to that attempt and says what it
/// did: a 429 (too many requests), a 412 (a condition failed) or another
/// 4xx wrote nothing, a 2xx wrote.
///
/// ```
/// use tinystore::guard::unknown_outcome;
/// assert!(unknown_outcome(None));
/// assert!(unknown_outcome(Some(503)));
/// assert!(!unknown_outcome(Some(429)));
/// ```
pub fn unknown_outcome(status: Option<u16>) -> bool {
    match status {
        None => true,
        Some(status) => status >= 500 || status == 408,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_answer_a_5xx_or_a_408_leave_the_outcome_unknown() {
        for status in [None, Some(500), Some(502), Some(503), Some(504), Some(408)] {
            assert!(unknown_outcome(status), "{status:?}");
        }
    }

    #[test]
    fn any_other_status_is_an_answer() {
        for status in [200, 201, 204, 304, 400, 403, 404, 409, 412, 429] {
            assert!(!unknown_outcome(Some(status)), "{status}");
        }
    }
}
