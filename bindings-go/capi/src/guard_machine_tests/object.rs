//! The object store's put machine through the C ABI.

use super::*;

#[test]
fn an_object_put_lists_puts_lists_and_a_wrong_observation_is_invalid() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    let pair = TsPair {
        key: lent("owner"),
        value: lent("go"),
    };
    // SAFETY: the texts and the pair are live; out and err are writable.
    assert!(unsafe {
        ts_guard_object_put_new(
            "b".as_ptr(),
            1,
            "k".as_ptr(),
            1,
            TsFence { epoch: 0, count: 7 },
            &pair,
            1,
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(
        (step.kind, text_of(&step.text).as_str()),
        (TsStepKind::List, "k/tinystore-fence/")
    );
    let step = observe(m, &observed(TS_OBSERVED_LISTED));
    assert_eq!(step.kind, TsStepKind::Put);
    // SAFETY: metadata_len pairs at metadata, made by this library.
    let metadata = unsafe { std::slice::from_raw_parts(step.metadata, step.metadata_len) };
    let keys: Vec<String> = metadata.iter().map(|p| text_of(&p.key)).collect();
    assert!(keys.contains(&"owner".to_string()) && keys.contains(&"tinystore-fence".to_string()));
    let ours = text_of(&step.text);
    let step = observe(m, &observed(TS_OBSERVED_WRITTEN));
    assert_eq!(step.kind, TsStepKind::List);
    let listed = [lent(&ours)];
    let after = TsObserved {
        keys: listed.as_ptr(),
        keys_len: 1,
        ..observed(TS_OBSERVED_LISTED)
    };
    let step = observe(m, &after);
    assert_eq!(step.verdict.kind, TsVerdictKind::Accepted);
    let mut step2 = MaybeUninit::<TsGuardStep>::uninit();
    // SAFETY: m is live; the observation readable; step2 and err writable.
    let ok =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_ROW), step2.as_mut_ptr(), &mut err) };
    assert!(!ok && err.code == TsCode::Invalid, "{}", message(&err));
    // SAFETY: filled by this library; the machine is not used again.
    unsafe {
        ts_error_clear(&mut err);
        ts_guard_free(m);
    }
    // SAFETY: NULL handles are refused, never read.
    assert!(!unsafe {
        ts_guard_observe(
            std::ptr::null(),
            &observed(TS_OBSERVED_ROW),
            step2.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}
