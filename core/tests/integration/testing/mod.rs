//! The test kit (`tinystore::testing`): expiring a holder on purpose and
//! moving a test store's time, embedded, served and blocking, and the
//! refusal of every store not made for tests. Real time, no sleeps: each
//! test waits only on the kit's own signals.

mod blocking;
mod embedded;
mod refusal;
mod served;
