//! What must hold of the writers' verdicts in every model whose writers
//! each run one guarded write (the SQL register's and the versioned
//! object's): the same promises, told the same way.

/// One writer as the checks see it.
pub struct Seen<'a> {
    /// Its fence.
    pub fence: u128,
    /// The largest fence recorded when its write last landed.
    pub landed_over: u128,
    /// Its verdict, once decided: `accepted`, or an error's code.
    pub verdict: Option<&'a str>,
    /// Whether it may end in doubt (`unavailable`): an attempt of its write
    /// went unanswered and was made again.
    pub may_doubt: bool,
}

/// Across one transition, from `was` to `now` (the writers in the same
/// order): no write accepted over a larger fence, none refused unless a
/// larger fence was ever recorded (`max_ever`).
pub fn check_decided(was: &[Seen], now: &[Seen], max_ever: u128) -> Result<(), String> {
    for (w, before) in now.iter().zip(was) {
        match (before.verdict, w.verdict) {
            (None, Some("accepted")) if w.landed_over > w.fence => {
                return Err(format!(
                    "fence {} was accepted though it landed over fence {}",
                    w.fence, w.landed_over
                ))
            }
            (None, Some("stale")) if max_ever <= w.fence => {
                return Err(format!(
                    "fence {} was refused though no larger fence was recorded",
                    w.fence
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Where a run ends: every writer decided, `accepted` or `stale` (or
/// `corrupt` once the record was `edited` by hand, or `unavailable` after
/// an attempt of its own went unanswered); and writers of one fence
/// (`all_equal`, none below what was recorded before) all accepted.
pub fn check_ended(writers: &[Seen], edited: bool, all_equal: bool) -> Result<(), String> {
    for w in writers {
        let v = w.verdict.ok_or(format!("fence {} undecided", w.fence))?;
        let allowed = matches!(v, "accepted" | "stale")
            || edited && v == "corrupt"
            || w.may_doubt && v == "unavailable";
        if !allowed {
            return Err(format!("fence {} ended {v}", w.fence));
        }
    }
    if all_equal && !edited && writers.iter().any(|w| w.verdict != Some("accepted")) {
        return Err("writers of one fence were not all accepted".into());
    }
    Ok(())
}

/// Whether every fence is the first and none lies below `before`, the
/// fence recorded before the writers start.
pub fn all_equal(fences: &[u128], before: Option<u128>) -> bool {
    fences.iter().all(|f| *f == fences[0]) && before.is_none_or(|b| b <= fences[0])
}
