//! `NativeLeaseAcquiring` and `NativePermitAcquiring`: the core's
//! [`tinystore::binding::Acquiring`] as JS sees it. JS takes the outcome once and
//! calls `giveUp` when its AbortSignal aborts; the core closes the race of
//! a grant with a give-up, so nothing leaks.
//!
//! The outcome is taken on the JS thread: polled once at once (an embedded
//! store's free key is granted there), else waited for on the JS thread
//! (see [`crate::completion`]) and taken there when it is ready. A give-up that JS ran before
//! that drops a lease granted meanwhile, and the outcome is `null`.

use crate::error::to_napi;
use crate::lease::{NativeLease, NativePermit};
use napi_derive::napi;

/// The JS class over `Acquiring<$core>`, giving `$held` made by `$convert`
/// (`$held::from` when not given; the election's is made in `election`,
/// `acquireAll`'s in `several`, beside the classes they give).
macro_rules! acquiring_class {
    ($doc:literal, $t:ident, $core:ty, $held:ty) => {
        $crate::acquiring::acquiring_class!($doc, $t, $core, $held, <$held>::from);
    };
    ($doc:literal, $t:ident, $core:ty, $held:ty, $convert:expr) => {
        #[doc = $doc]
        #[napi]
        pub struct $t {
            inner: tinystore::binding::Acquiring<$core>,
        }

        impl From<tinystore::binding::Acquiring<$core>> for $t {
            fn from(inner: tinystore::binding::Acquiring<$core>) -> $t {
                $t { inner }
            }
        }

        #[napi]
        impl $t {
            /// The outcome, taken once: the holding itself when it is
            /// granted at once, else a promise of it; `null` when it was
            /// given up (or taken already). Fails with the acquire's error.
            #[napi]
            pub fn outcome<'env>(
                &self,
                env: &'env ::napi::Env,
            ) -> ::napi::Result<
                ::napi::bindgen_prelude::Either<
                    Option<$held>,
                    ::napi::bindgen_prelude::PromiseRaw<'env, Option<$held>>,
                >,
            > {
                use ::napi::bindgen_prelude::{within_runtime_if_available, Either};
                use ::std::task::Poll;
                use $crate::acquiring::taken;
                let acquiring = self.inner.clone();
                match within_runtime_if_available(|| acquiring.poll_now()) {
                    Poll::Ready(outcome) => Ok(Either::A(taken(outcome, $convert)?)),
                    Poll::Pending => {
                        let promise = $crate::completion::later(env, async move {
                            acquiring.ready().await;
                            match acquiring.poll_now() {
                                Poll::Ready(outcome) => taken(outcome, $convert),
                                Poll::Pending => {
                                    Err($crate::error::to_napi(tinystore::Error::new(
                                        tinystore::Code::Internal,
                                        "an acquire was ready, then pending",
                                    )))
                                }
                            }
                        })?;
                        Ok(Either::B(promise))
                    }
                }
            }

            /// Gives the acquire up: idempotent; a lease granted as it gave
            /// up is released. Nothing once the outcome was taken.
            #[napi]
            pub fn give_up(&self) {
                self.inner.give_up()
            }
        }
    };
}

pub(crate) use acquiring_class;

/// The JS value of a taken outcome, made by `convert`.
pub(crate) fn taken<C, H>(
    outcome: tinystore::Result<Option<C>>,
    convert: impl FnOnce(C) -> H,
) -> napi::Result<Option<H>> {
    Ok(outcome.map_err(to_napi)?.map(convert))
}

acquiring_class!(
    "A lock's (or a read-write lock's write) acquire under way.",
    NativeLeaseAcquiring,
    tinystore::Lease,
    NativeLease
);
acquiring_class!(
    "A semaphore's (or a read-write lock's read) acquire under way.",
    NativePermitAcquiring,
    tinystore::Permit,
    NativePermit
);
