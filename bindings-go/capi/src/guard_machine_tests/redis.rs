//! The Redis machines (a guarded SET, a script behind the check) through
//! the C ABI.

use super::*;

#[test]
fn a_redis_set_is_one_script_and_a_larger_fence_in_its_reply_is_stale() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    assert!(unsafe {
        ts_guard_redis_set_new(
            "chats/42".as_ptr(),
            8,
            "v".as_ptr(),
            1,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Eval);
    assert!(text_of(&step.text).contains("redis.call('SET', KEYS[1], ARGV[1])"));
    let keys = texts_of(step.keys, step.keys_len);
    assert_eq!(keys, ["{chats/42}:tinystore-fence", "chats/42"]);
    let args = texts_of(step.params, step.params_len);
    assert_eq!(args, [Fence::from_u128(7).text().as_str(), "set", "v"]);
    let larger = Fence::from_u128(9).text();
    let reply = [lent("refused"), lent(&larger)];
    let answered = TsObserved {
        reply: reply.as_ptr(),
        reply_len: 2,
        ..observed(TS_OBSERVED_REPLY)
    };
    let v = observe(m, &answered).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(v.stale_largest, TsFence { epoch: 0, count: 9 });
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_redis_script_runs_behind_the_check_and_bad_text_is_invalid() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    let (theirs, arg) = ([lent("{chats/42}:log")], [lent("a")]);
    let body = "return 1";
    // SAFETY: the texts and arrays are live; out, first and err are writable.
    assert!(unsafe {
        ts_guard_redis_script_new(
            "chats/42".as_ptr(),
            8,
            body.as_ptr(),
            body.len(),
            theirs.as_ptr(),
            1,
            arg.as_ptr(),
            1,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert!(text_of(&step.text).contains("return 1\nend)(keys, args)"));
    assert_eq!(texts_of(step.keys, step.keys_len)[2], "{chats/42}:log");
    let reply = [lent("accepted"), lent("1")];
    let answered = TsObserved {
        reply: reply.as_ptr(),
        reply_len: 2,
        ..observed(TS_OBSERVED_REPLY)
    };
    assert_eq!(observe(m, &answered).verdict.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
    let bad = [TsText {
        ptr: b"k\xff".as_ptr(),
        len: 2,
    }];
    let (mut m, mut first) = (std::ptr::null_mut(), MaybeUninit::uninit());
    // SAFETY: as above.
    let made = unsafe {
        ts_guard_redis_script_new(
            "chats/42".as_ptr(),
            8,
            body.as_ptr(),
            body.len(),
            bad.as_ptr(),
            1,
            std::ptr::null(),
            0,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("Redis key"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}
