//! `Expirable`: what the test kit can end on purpose.

use crate::error::Result;
use std::future::Future;
use std::pin::Pin;

/// A boxed future of the kit's `expire`.
pub type Expiring<'a> = Pin<Box<dyn Future<Output = Result<()>> + Send + 'a>>;

/// A held lease, permit or leadership, async or blocking, that the test
/// kit can end as if its holder had paused past its TTL. Sealed: only
/// tinystore's own types are expirable.
pub trait Expirable: sealed::Sealed {
    /// Ends it in its store and resolves once its holder was told.
    #[doc(hidden)]
    fn expire_now(&self) -> Expiring<'_>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! expirable {
    ($($t:ty => |$it:ident| $holding:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Expirable for $t {
            fn expire_now(&self) -> Expiring<'_> {
                let $it = self;
                Box::pin(async move { $holding.expire().await })
            }
        }
    )*};
}

expirable! {
    crate::Lease => |it| crate::lease::LeaseKind::holding(it),
    crate::Permit => |it| crate::lease::LeaseKind::holding(it),
    crate::Leadership => |it| crate::lease::LeaseKind::holding(it.lease()),
    crate::blocking::Lease => |it| crate::lease::LeaseKind::holding(it.as_async()),
    crate::blocking::Permit => |it| crate::lease::LeaseKind::holding(it.as_async()),
    crate::blocking::Leadership => |it| crate::lease::LeaseKind::holding(it.as_async().lease()),
}
