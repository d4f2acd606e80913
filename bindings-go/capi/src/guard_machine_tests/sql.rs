//! The SQL check's machine through the C ABI.

use super::*;

#[test]
fn a_sql_check_runs_the_cores_steps_and_ends_stale_with_the_three() {
    let (m, first, _) = sql_check(b"chats/42", 7);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Execute);
    assert!(text_of(&step.text).starts_with("INSERT INTO tinystore_fences"));
    assert_eq!(step.params_len, 2);
    // SAFETY: params_len texts at params, made by this library.
    let params = unsafe { std::slice::from_raw_parts(step.params, step.params_len) };
    assert_eq!(text_of(&params[0]), "chats/42");
    let step = observe(m, &observed(TS_OBSERVED_CHANGED));
    assert_eq!(step.kind, TsStepKind::Query);
    let larger = Fence::new(1, 0).text();
    let row = TsObserved {
        row: lent(&larger),
        ..observed(TS_OBSERVED_ROW)
    };
    let step = observe(m, &row);
    assert_eq!(
        (step.kind, step.verdict.kind),
        (TsStepKind::Done, TsVerdictKind::Refused)
    );
    let v = &step.verdict;
    assert_eq!(v.code, TsCode::Stale);
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(v.stale_fence, TsFence { epoch: 0, count: 7 });
    assert_eq!(v.stale_largest, TsFence { epoch: 1, count: 0 });
    assert!(text_of(&v.message).contains("chats/42"));
    // SAFETY: the machine is not used again (nor its step's texts).
    unsafe { ts_guard_free(m) };
}

#[test]
fn text_that_is_not_utf8_is_invalid_before_any_step() {
    let (m, _, mut err) = sql_check(b"chats/\xed\xa0\x80", 7);
    assert!(m.is_null());
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("guard resource") && message(&err).contains("UTF-8"),
        "{}",
        message(&err)
    );
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let (mut m, mut first, bad) = (std::ptr::null_mut(), MaybeUninit::uninit(), b"k\xff");
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_object_read_new(
            "b".as_ptr(),
            1,
            bad.as_ptr(),
            2,
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("object key"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}
