//! OpenTelemetry, with the cargo feature `otel`: a span for each wait
//! (`tinystore.wait`), each hold from grant to end (`tinystore.hold`) and
//! each guard's check (`tinystore.guard.check`), and a counter of the late
//! writes guards refused (`tinystore.guard.refused`), on the global tracer
//! and meter providers the application set (none set: OpenTelemetry's
//! no-op ones). Without the feature none of this is compiled in.
//! Attribute names are listed in docs/observe.md, "OpenTelemetry".
//!
//! A store takes its tracer from the global provider once, when it is
//! opened or connected ([`StoreTracer`]): a store opened while no provider
//! is set makes no wait or hold span at all, so the feature built in and
//! unused costs a branch a hold; set the provider first, as for any
//! library that takes its tracer once. A span that does not record (one
//! the provider samples out) is given no attributes: its texts (the key,
//! the fence in decimal) are never made.

use crate::error::{Code, Error};
use crate::fence::Fence;
use crate::vocab::KeyId;
use opentelemetry::global::{self, BoxedSpan, BoxedTracer};
use opentelemetry::trace::{SamplingDecision, SamplingResult, Span, Status, TraceState, Tracer};
use opentelemetry::{Context, KeyValue};

/// The instrumentation scope of every span and metric.
const SCOPE: &str = "tinystore";

/// The attributes that name a key: its group's kind and name, and the key.
fn key_attributes(key: &KeyId) -> [KeyValue; 3] {
    [
        KeyValue::new("tinystore.kind", key.kind()),
        KeyValue::new("tinystore.group", key.name().to_string()),
        KeyValue::new("tinystore.key", key.key().to_string()),
    ]
}

fn fence_attribute(fence: Fence) -> KeyValue {
    KeyValue::new("tinystore.fence", fence.text())
}

fn error_attributes(span: &mut BoxedSpan, err: &Error) {
    span.set_attribute(KeyValue::new("tinystore.error.code", err.code().as_str()));
    span.set_status(Status::error(err.message().to_string()));
}

/// A store's tracer: the global provider's, taken when the store was
/// opened or connected, or none when that provider was OpenTelemetry's
/// no-op one (nothing is then made for a wait or a hold).
pub(crate) struct StoreTracer(Option<BoxedTracer>);

impl StoreTracer {
    /// The global provider's tracer now. The no-op provider is told apart
    /// by a span it is asked to make unsampled and without a parent: the
    /// no-op one has no valid context, where a real provider gives it ids.
    /// Such a span is never recorded nor exported.
    pub(crate) fn global() -> StoreTracer {
        let tracer = global::tracer(SCOPE);
        let mut probe = tracer.span_builder("tinystore.probe");
        probe.sampling_result = Some(SamplingResult {
            decision: SamplingDecision::Drop,
            attributes: Vec::new(),
            trace_state: TraceState::default(),
        });
        let probe = tracer.build_with_context(probe, &Context::new());
        let real = probe.is_recording() || probe.span_context().is_valid();
        StoreTracer(real.then_some(tracer))
    }

    /// A span named `name`, if it records: `None` when it does not (no
    /// provider, or sampled out), so that nothing more is made for it.
    fn recording(&self, name: &'static str) -> Option<BoxedSpan> {
        let span = self.0.as_ref()?.start(name);
        span.is_recording().then_some(span)
    }
}

/// The span of one acquire's wait, from its ask to its grant or failure.
pub(crate) struct Waiting(Option<BoxedSpan>);

impl Waiting {
    /// Starts the wait for `key`, on the store's `tracer`.
    pub(crate) fn start(tracer: &StoreTracer, key: &KeyId) -> Waiting {
        let mut span = tracer.recording("tinystore.wait");
        if let Some(span) = span.as_mut() {
            span.set_attributes(key_attributes(key));
        }
        Waiting(span)
    }

    /// Ends it: granted with `fence` (none for a permit), or failed.
    pub(crate) fn end(self, outcome: std::result::Result<Option<Fence>, &Error>) {
        let Some(mut span) = self.0 else {
            return;
        };
        match outcome {
            Ok(Some(fence)) => span.set_attribute(fence_attribute(fence)),
            Ok(None) => {}
            Err(err) => error_attributes(&mut span, err),
        }
        span.end();
    }
}

/// The span of one hold, from its grant to its release or loss; `None`
/// when it does not record.
pub(crate) struct Holding(Option<std::sync::Mutex<Option<BoxedSpan>>>);

impl Holding {
    /// Starts the hold of `key`, granted with `fence` (none for a permit),
    /// on the store's `tracer`.
    pub(crate) fn start(tracer: &StoreTracer, key: &KeyId, fence: Option<Fence>) -> Holding {
        let Some(mut span) = tracer.recording("tinystore.hold") else {
            return Holding(None);
        };
        span.set_attributes(key_attributes(key));
        if let Some(fence) = fence {
            span.set_attribute(fence_attribute(fence));
        }
        Holding(Some(std::sync::Mutex::new(Some(span))))
    }

    /// Ends it (once): `released`, or `lost` with the loss's code.
    pub(crate) fn end(&self, lost: Option<&Error>) {
        let Some(slot) = &self.0 else {
            return;
        };
        let taken = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(mut span) = taken else {
            return;
        };
        match lost {
            None => span.set_attribute(KeyValue::new("tinystore.ended", "released")),
            Some(err) => {
                span.set_attribute(KeyValue::new("tinystore.ended", "lost"));
                error_attributes(&mut span, err);
            }
        }
        span.end();
    }
}

/// The span of one guard's check of a write to a resource (made by the
/// guards behind cargo features: none may be on).
#[cfg_attr(
    not(any(
        feature = "guard-sqlite",
        feature = "guard-postgres",
        feature = "guard-mysql",
        feature = "guard-redis",
        feature = "guard-s3",
        feature = "guard-dynamodb",
        feature = "guard-gcs",
        feature = "guard-azure"
    )),
    allow(dead_code)
)]
pub(crate) struct Checking(BoxedSpan);

#[cfg_attr(
    not(any(
        feature = "guard-sqlite",
        feature = "guard-postgres",
        feature = "guard-mysql",
        feature = "guard-redis",
        feature = "guard-s3",
        feature = "guard-dynamodb",
        feature = "guard-gcs",
        feature = "guard-azure"
    )),
    allow(dead_code)
)]
impl Checking {
    /// Starts the check of a write to `resource` under `fence`.
    pub(crate) fn start(resource: &str, fence: Fence) -> Checking {
        let mut span = global::tracer(SCOPE).start("tinystore.guard.check");
        span.set_attribute(KeyValue::new("tinystore.resource", resource.to_string()));
        span.set_attribute(fence_attribute(fence));
        Checking(span)
    }

    /// Ends it with the guard's verdict: `accepted`, `stale` (with the
    /// largest fence, and the counter of late writes refused counts one),
    /// or the error's code. `backend` names where the write lands (`sqlite`,
    /// `postgres`, ...), the counter's one attribute.
    pub(crate) fn end<T>(mut self, backend: &'static str, verdict: &crate::error::Result<T>) {
        let outcome = match verdict {
            Ok(_) => "accepted",
            Err(err) if err.code() == Code::Stale => {
                if let Some(stale) = err.stale_detail() {
                    let largest = Fence::from_u128(stale.largest);
                    self.0
                        .set_attribute(KeyValue::new("tinystore.largest", largest.text()));
                }
                global::meter(SCOPE)
                    .u64_counter("tinystore.guard.refused")
                    .with_unit("{write}")
                    .with_description(
                        "late writes refused by a guard: fences older than one recorded",
                    )
                    .build()
                    .add(1, &[KeyValue::new("tinystore.backend", backend)]);
                "stale"
            }
            Err(err) => {
                error_attributes(&mut self.0, err);
                "error"
            }
        };
        self.0
            .set_attribute(KeyValue::new("tinystore.outcome", outcome));
        self.0.end();
    }
}
