//! The DynamoDB machine through the C ABI.

use super::*;

/// A DynamoDB guard of fence 7 with `items` items of the caller's, its
/// first step (when made) and the error (when not).
fn dynamo(
    table: &[u8],
    resource: &[u8],
    items: usize,
) -> (*mut TsGuardMachine, MaybeUninit<TsGuardStep>, TsError, bool) {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_dynamo_new(
            table.as_ptr(),
            table.len(),
            resource.as_ptr(),
            resource.len(),
            TsFence { epoch: 0, count: 7 },
            items,
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    (m, first, err, made)
}

/// The cancellation of a transaction with these reasons and the register
/// item's fence as returned.
fn cancelled(reasons: &[TsText], recorded: Option<&str>) -> TsObserved {
    TsObserved {
        reasons: reasons.as_ptr(),
        reasons_len: reasons.len(),
        has_recorded: recorded.is_some(),
        recorded: recorded.map(lent).unwrap_or_else(none),
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("TransactionCanceledException"),
            message: lent("Transaction cancelled"),
            ..failure()
        },
        ..observed(TS_OBSERVED_CANCELLED)
    }
}

#[test]
fn a_dynamo_transaction_puts_the_register_last_and_a_larger_fence_returned_is_stale() {
    let (m, first, _, made) = dynamo(b"tinystore_fences", b"chats/42", 1);
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Transact);
    assert_eq!(text_of(&step.text), "tinystore_fences");
    assert_eq!(texts_of(step.keys, step.keys_len), ["chats/42"]);
    let fence = Fence::from_u128(7).text();
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "40"]
    );
    let larger = Fence::from_u128(9).text();
    let reasons = [lent("None"), lent("ConditionalCheckFailed")];
    let v = observe(m, &cancelled(&reasons, Some(&larger))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(
        (v.stale_fence, v.stale_largest),
        (
            TsFence { epoch: 0, count: 7 },
            TsFence { epoch: 0, count: 9 }
        )
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_larger_fence_after_a_lost_answer_is_unavailable_and_another_machine_invalid() {
    let (m, _, _, made) = dynamo(b"tinystore_fences", b"chats/42", 1);
    assert!(made);
    let mut err = error();
    // SAFETY: m is live; err is writable.
    assert!(unsafe { ts_guard_dynamo_attempted(m, 0, &mut err) });
    let larger = Fence::from_u128(9).text();
    let reasons = [lent("None"), lent("ConditionalCheckFailed")];
    let v = observe(m, &cancelled(&reasons, Some(&larger))).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Refused, TsCode::Unavailable)
    );
    assert!(!v.stale);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (sql, _, _) = sql_check(b"chats/42", 7);
    let mut err = error();
    // SAFETY: sql is live; err is writable.
    assert!(!unsafe { ts_guard_dynamo_attempted(sql, 0, &mut err) });
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("not a DynamoDB"),
        "{}",
        message(&err)
    );
    // SAFETY: err was filled by this library; NULL is refused.
    unsafe {
        ts_error_clear(&mut err);
        assert!(!ts_guard_dynamo_attempted(std::ptr::null(), 0, &mut err));
        ts_error_clear(&mut err);
        ts_guard_free(sql);
    }
}

#[test]
fn a_dynamo_register_not_returned_is_read_and_a_callers_reason_is_the_drivers() {
    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 0);
    let reasons = [lent("ConditionalCheckFailed")];
    let step = observe(m, &cancelled(&reasons, None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    assert_eq!(text_of(&step.text), "fences");
    assert_eq!(texts_of(step.keys, step.keys_len), ["chats/42"]);
    let read = TsObserved {
        row: lent("(a number)"),
        ..observed(TS_OBSERVED_ROW)
    };
    let v = observe(m, &read).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Corrupt));
    assert!(text_of(&v.message).contains("fences"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 1);
    let reasons = [lent("TransactionConflict"), lent("None")];
    let v = observe(m, &cancelled(&reasons, None)).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Driver, TsCode::Io));
    assert!(text_of(&v.message).contains("TransactionConflict"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 0);
    let step = observe(m, &cancelled(&[lent("ConditionalCheckFailed")], None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    let mut step = MaybeUninit::<TsGuardStep>::uninit();
    let mut err = error();
    // SAFETY: m is live, the observation readable, step and err writable.
    let took =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_REPLY), step.as_mut_ptr(), &mut err) };
    assert!(!took && err.code == TsCode::Invalid && message(&err).contains("DynamoDB"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let gone = TsObserved {
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("connection"),
            ..failure()
        },
        ..observed(TS_OBSERVED_FAILED)
    };
    let v = observe(m, &gone).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Driver, TsCode::Unavailable)
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/43", 0);
    let step = observe(m, &cancelled(&[lent("ConditionalCheckFailed")], None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    let v = observe(m, &observed(TS_OBSERVED_NO_ROW)).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Internal));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_dynamo_guard_of_bad_input_ends_invalid_before_any_call() {
    for (table, resource, items, about) in [
        (
            &b"tinystore_fences"[..],
            &b"chats/42"[..],
            100,
            "at most 99",
        ),
        (b"tinystore_fences", b"", 1, "resource"),
        (b"", b"chats/42", 1, "table"),
    ] {
        let (m, first, _, made) = dynamo(table, resource, items);
        assert!(made);
        // SAFETY: written by the call that made m.
        let step = unsafe { first.assume_init() };
        assert_eq!(step.kind, TsStepKind::Done);
        let v = step.verdict;
        assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Invalid));
        assert!(
            text_of(&v.message).contains(about),
            "{}",
            text_of(&v.message)
        );
        // SAFETY: the machine is not used again.
        unsafe { ts_guard_free(m) };
    }
    let (_, _, mut err, made) = dynamo(b"t\xff", b"chats/42", 1);
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("register table"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let mut names = MaybeUninit::<TsDynamoNames>::uninit();
    // SAFETY: names is writable.
    unsafe { ts_guard_dynamo_names(names.as_mut_ptr()) };
    // SAFETY: written by the call above.
    let names = unsafe { names.assume_init() };
    // SAFETY: the library's NUL-terminated texts, never freed.
    let condition = unsafe { CStr::from_ptr(names.condition) }.to_str().unwrap();
    assert!(condition.starts_with("attribute_not_exists(fence)"));
    // SAFETY: as above.
    let table = unsafe { CStr::from_ptr(names.register_table) };
    assert_eq!(table.to_str().unwrap(), "tinystore_fences");
    assert_eq!(names.max_items, 100);
}
