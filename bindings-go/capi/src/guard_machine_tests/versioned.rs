//! The versioned put's machine (GCS, Azure Blob) through the C ABI.

use super::*;

/// A guarded put of fence 7 to `resource` on `store`, its first step
/// (when made) and the error (when not).
fn versioned(
    store: &[u8],
    resource: &[u8],
) -> (*mut TsGuardMachine, MaybeUninit<TsGuardStep>, TsError, bool) {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_versioned_new(
            store.as_ptr(),
            store.len(),
            resource.as_ptr(),
            resource.len(),
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    (m, first, err, made)
}

/// A read that found `version` with the fence metadata `recorded`.
fn found(version: &str, recorded: Option<&str>) -> TsObserved {
    TsObserved {
        version: lent(version),
        has_recorded: recorded.is_some(),
        recorded: recorded.map(lent).unwrap_or_else(none),
        ..observed(TS_OBSERVED_FOUND)
    }
}

#[test]
fn a_versioned_put_reads_then_puts_on_the_version_read_or_on_absence() {
    let (m, first, _, made) = versioned(b"gcs", b"tinystore/chats/42");
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::ReadObject);
    assert_eq!(text_of(&step.text), "tinystore-fence");
    assert_eq!(step.params_len, 0);
    let fence = Fence::from_u128(7).text();
    let step = observe(m, &observed(TS_OBSERVED_ABSENT));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    assert_eq!(text_of(&step.text), "tinystore-fence");
    assert_eq!(texts_of(step.params, step.params_len), [fence.as_str()]);
    // Another writer made it between: read again, put on its generation.
    let step = observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
    assert_eq!(step.kind, TsStepKind::ReadObject);
    let equal = Fence::from_u128(7).text();
    let step = observe(m, &found("1700000000000001", Some(&equal)));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "1700000000000001"]
    );
    let v = observe(m, &observed(TS_OBSERVED_WRITTEN)).verdict;
    assert_eq!(v.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    // Azure's key; an object written without the guard is taken over.
    let (m, first, _, _) = versioned(b"azure", b"tinystore/chats/42");
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(text_of(&step.text), "tinystore_fence");
    let step = observe(m, &found("\"0x8D\"", None));
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "\"0x8D\""]
    );
    assert_eq!(text_of(&step.text), "tinystore_fence");
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_versioned_put_over_a_larger_fence_is_stale_and_a_bad_one_corrupt() {
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    let larger = Fence::from_u128(9).text();
    let v = observe(m, &found("12", Some(&larger))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "tinystore/chats/42");
    assert_eq!(v.stale_largest, TsFence { epoch: 0, count: 9 });
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = versioned(b"azure", b"tinystore/chats/42");
    let v = observe(m, &found("\"0x1\"", Some("seven"))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Corrupt));
    assert!(text_of(&v.message).contains("tinystore_fence"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    // A failed read is the driver's failure, classified; a wrong kind is
    // invalid.
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    let mut step = MaybeUninit::<TsGuardStep>::uninit();
    let mut err = error();
    // SAFETY: m is live, the observation readable, step and err writable.
    let took =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_REPLY), step.as_mut_ptr(), &mut err) };
    assert!(!took && err.code == TsCode::Invalid && message(&err).contains("versioned"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let gone = TsObserved {
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("ECONNREFUSED"),
            message: lent("connection refused"),
            ..failure()
        },
        ..observed(TS_OBSERVED_FAILED)
    };
    let v = observe(m, &gone).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Driver, TsCode::Unavailable)
    );
    assert!(text_of(&v.message).contains("Google Cloud Storage"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_larger_fence_after_a_lost_put_answer_is_unavailable_and_another_machine_invalid() {
    // Without a lost answer, a failed condition then a larger fence is
    // stale: another writer came in between, nothing was written.
    let larger = Fence::from_u128(9).text();
    // An attempt answered 429 wrote nothing; one with no answer (0) or a
    // 503 may have.
    for (store, attempt, lost) in [
        (&b"gcs"[..], None, false),
        (b"azure", Some(0), true),
        (b"gcs", Some(0), true),
        (b"gcs", Some(429), false),
        (b"azure", Some(503), true),
    ] {
        let (m, _, _, made) = versioned(store, b"tinystore/chats/42");
        assert!(made);
        let step = observe(m, &observed(TS_OBSERVED_ABSENT));
        assert_eq!(step.kind, TsStepKind::PutVersioned);
        if let Some(status) = attempt {
            let mut err = error();
            // SAFETY: m is live; err is writable.
            assert!(unsafe { ts_guard_versioned_attempted(m, status, &mut err) });
        }
        let step = observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
        assert_eq!(step.kind, TsStepKind::ReadObject);
        let v = observe(m, &found("12", Some(&larger))).verdict;
        let want = if lost {
            TsCode::Unavailable
        } else {
            TsCode::Stale
        };
        assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, want));
        assert_eq!(v.stale, !lost);
        if lost {
            assert!(
                text_of(&v.message).contains("may have been written"),
                "{}",
                text_of(&v.message)
            );
        }
        // SAFETY: the machine is not used again.
        unsafe { ts_guard_free(m) };
    }

    // Its own fence read back after a lost answer: put again, accepted.
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    observe(m, &observed(TS_OBSERVED_ABSENT));
    let mut err = error();
    // SAFETY: m is live; err is writable.
    assert!(unsafe { ts_guard_versioned_attempted(m, 0, &mut err) });
    observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
    let own = Fence::from_u128(7).text();
    let step = observe(m, &found("12", Some(&own)));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    let v = observe(m, &observed(TS_OBSERVED_WRITTEN)).verdict;
    assert_eq!(v.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (sql, _, _) = sql_check(b"chats/42", 7);
    let mut err = error();
    // SAFETY: sql is live; err is writable.
    assert!(!unsafe { ts_guard_versioned_attempted(sql, 0, &mut err) });
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("not a GCS or Azure"),
        "{}",
        message(&err)
    );
    // SAFETY: err was filled by this library; NULL is refused.
    unsafe {
        ts_error_clear(&mut err);
        assert!(!ts_guard_versioned_attempted(std::ptr::null(), 0, &mut err));
        assert_eq!(err.code, TsCode::Invalid);
        ts_error_clear(&mut err);
        ts_guard_free(sql);
    }
}

#[test]
fn a_versioned_put_of_bad_input_ends_invalid_before_any_call() {
    let (m, first, _, made) = versioned(b"gcs", b"");
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Done);
    assert_eq!(
        (step.verdict.kind, step.verdict.code),
        (TsVerdictKind::Refused, TsCode::Invalid)
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
    for (store, resource, says) in [
        (&b"s3"[..], &b"b/k"[..], "versioned store"),
        (b"gcs", b"b/k\xff", "guard resource"),
    ] {
        let (_, _, mut err, made) = versioned(store, resource);
        assert!(!made && err.code == TsCode::Invalid, "{says}");
        assert!(message(&err).contains(says), "{}", message(&err));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }
}

#[test]
fn the_guards_own_metadata_key_is_invalid_in_any_spelling() {
    let check = |store: &str, keys: &[TsText]| {
        let mut err = error();
        let resource = "tinystore/chats/42";
        // SAFETY: the texts and the array are live; err is writable.
        let ok = unsafe {
            ts_guard_versioned_check_metadata(
                store.as_ptr(),
                store.len(),
                resource.as_ptr(),
                resource.len(),
                keys.as_ptr(),
                keys.len(),
                &mut err,
            )
        };
        let said = (!ok).then(|| (err.code, message(&err)));
        if !ok {
            // SAFETY: filled by this library.
            unsafe { ts_error_clear(&mut err) };
        }
        said
    };
    assert_eq!(check("gcs", &[lent("owner")]), None);
    assert_eq!(check("azure", &[]), None);
    for key in ["tinystore-fence", "Tinystore_Fence", "TINYSTORE_DELETED"] {
        let (code, said) = check("azure", &[lent("owner"), lent(key)]).unwrap();
        assert_eq!(code, TsCode::Invalid);
        assert!(said.contains(key), "{said}");
    }
    let bad = [TsText {
        ptr: b"k\xff".as_ptr(),
        len: 2,
    }];
    let (code, said) = check("gcs", &bad).unwrap();
    assert!(
        code == TsCode::Invalid && said.contains("metadata key"),
        "{said}"
    );
}
