//! The core's classification of a driver's described failure, through the
//! C ABI.

use super::*;

#[test]
fn the_core_classifies_a_described_failure() {
    let (mut class, mut err) = (TsDriverClass::Other, error());
    let f = TsDriverFailure {
        has_sqlstate: true,
        sqlstate: lent("40001"),
        ..failure()
    };
    let (doing, mut error) = ("making tinystore_fences", error());
    // SAFETY: f and doing are readable; class, error and err writable.
    assert!(unsafe {
        ts_guard_classify(
            &f,
            doing.as_ptr(),
            doing.len(),
            &mut class,
            &mut error,
            &mut err,
        )
    });
    assert_eq!(
        (class, error.code),
        (TsDriverClass::Serialization, TsCode::Io)
    );
    assert!(message(&error).contains(doing) && message(&error).contains("40001"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut error) };
    let f = TsDriverFailure {
        has_error_code: true,
        error_code: lent("ECONNREFUSED"),
        ..failure()
    };
    // SAFETY: f is readable; a NULL error is not written; class and err writable.
    assert!(unsafe {
        ts_guard_classify(
            &f,
            std::ptr::null(),
            0,
            &mut class,
            std::ptr::null_mut(),
            &mut err,
        )
    });
    assert_eq!(class, TsDriverClass::Unavailable);
}
