// Package tinystoreotel traces tinystore with OpenTelemetry: a span for
// each wait (tinystore.wait), each Hold (tinystore.hold) and each guard's
// check (tinystore.guard.check), and the counter of late writes refused by
// guards (tinystore.guard.refused); docs/observe.md names their
// attributes. It is a module of its own, so that tinystore.dev/go brings
// no OpenTelemetry module to a program that does not import this one.
//
//	tinystoreotel.Install(nil, nil) // the global providers, otel.SetTracerProvider's
//	defer tinystoreotel.Uninstall()
package tinystoreotel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"tinystore.dev/go/locks"
)

// Scope is the instrumentation scope of the spans and the counter.
const Scope = "tinystore.dev/go/tinystoreotel"

type observer struct {
	// tp and mp are the providers given; nil: the global ones, looked up
	// on each call, and none while the global is still OpenTelemetry's
	// own, before any provider was set.
	tp           trace.TracerProvider
	mp           metric.MeterProvider
	globalTracer trace.TracerProvider
	globalMeter  metric.MeterProvider
	tracers      atomic.Pointer[scoped[trace.TracerProvider, trace.Tracer]]
	counters     atomic.Pointer[scoped[metric.MeterProvider, metric.Int64Counter]]
}

// scoped is what was made of provider P: its tracer, or its counter.
type scoped[P comparable, T any] struct {
	provider P
	made     T
}

// Install makes tinystore trace its waits, holds and guard checks with tp
// and count late writes refused with mp, from now on in this process; nil
// stands for the global provider (otel.GetTracerProvider,
// otel.GetMeterProvider), followed as it is set later. While the global
// provider is not set yet (or a provider is a no-op one), no span is made:
// a call costs a look at the global provider.
func Install(tp trace.TracerProvider, mp metric.MeterProvider) error {
	o := &observer{tp: tp, mp: mp}
	// Before a provider is set, the global one is OpenTelemetry's own
	// delegate, which later calls must not use: set, it is another.
	if g := otel.GetTracerProvider(); tp == nil && fmt.Sprintf("%T", g) == "*global.tracerProvider" {
		o.globalTracer = g
	}
	if g := otel.GetMeterProvider(); mp == nil && fmt.Sprintf("%T", g) == "*global.meterProvider" {
		o.globalMeter = g
	}
	if _, err := o.counter(); err != nil {
		return err
	}
	locks.SetObserver(o)
	return nil
}

// tracer is the tracer of the provider now; nil while none would record.
func (o *observer) tracer() trace.Tracer {
	tp := o.tp
	if tp == nil {
		tp = otel.GetTracerProvider()
		if tp == o.globalTracer {
			return nil
		}
	}
	if _, ok := tp.(tracenoop.TracerProvider); ok {
		return nil
	}
	if t := o.tracers.Load(); t != nil && t.provider == tp {
		return t.made
	}
	t := tp.Tracer(Scope)
	o.tracers.Store(&scoped[trace.TracerProvider, trace.Tracer]{tp, t})
	return t
}

// counter is the refused-writes counter of the provider now; nil while
// none would record.
func (o *observer) counter() (metric.Int64Counter, error) {
	mp := o.mp
	if mp == nil {
		mp = otel.GetMeterProvider()
		if mp == o.globalMeter {
			return nil, nil
		}
	}
	if _, ok := mp.(metricnoop.MeterProvider); ok {
		return nil, nil
	}
	if c := o.counters.Load(); c != nil && c.provider == mp {
		return c.made, nil
	}
	c, err := mp.Meter(Scope).Int64Counter("tinystore.guard.refused",
		metric.WithUnit("{write}"),
		metric.WithDescription("Late writes refused by tinystore's guards as stale"))
	if err != nil {
		return nil, err
	}
	o.counters.Store(&scoped[metric.MeterProvider, metric.Int64Counter]{mp, c})
	return c, nil
}

// What the observer gives while nothing records: no closure is made.
func noWait(locks.Fence, error) {}
func noEnd(error)               {}

// Uninstall stops the tracing Install started.
func Uninstall() { locks.SetObserver(nil) }

// FenceText is a fence as the spans' attributes carry it: 40 decimal
// digits, so that texts sort as the fences do.
func FenceText(f locks.Fence) string {
	text := f.String()
	if len(text) < 40 {
		text = strings.Repeat("0", 40-len(text)) + text
	}
	return text
}

func place(at locks.Place) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("tinystore.kind", at.Kind),
		attribute.String("tinystore.group", at.Name),
		attribute.String("tinystore.key", at.Key),
	}
}

// code is err's tinystore code, else "context" for a context's end, else
// "other".
func code(err error) string {
	var e *locks.Error
	var stale *locks.StaleError
	switch {
	case errors.As(err, &stale):
		return string(locks.CodeStale)
	case errors.As(err, &e):
		return string(e.Code)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "context"
	}
	var c locks.Code
	if errors.As(err, &c) {
		return string(c)
	}
	return "other"
}

func failed(span trace.Span, err error) {
	span.SetAttributes(attribute.String("tinystore.error.code", code(err)))
	span.SetStatus(codes.Error, err.Error())
}

func (o *observer) Wait(ctx context.Context, at locks.Place) func(locks.Fence, error) {
	tracer := o.tracer()
	if tracer == nil {
		return noWait
	}
	_, span := tracer.Start(ctx, "tinystore.wait", trace.WithAttributes(place(at)...))
	start := time.Now()
	return func(fence locks.Fence, err error) {
		waited := float64(time.Since(start)) / float64(time.Millisecond)
		span.SetAttributes(attribute.Float64("tinystore.waited_ms", waited))
		if err != nil {
			failed(span, err)
		} else if fence != (locks.Fence{}) {
			span.SetAttributes(attribute.String("tinystore.fence", FenceText(fence)))
		}
		span.End()
	}
}

func (o *observer) Hold(ctx context.Context, at locks.Place, fence locks.Fence) (context.Context, func(error)) {
	tracer := o.tracer()
	if tracer == nil {
		return ctx, noEnd
	}
	attrs := place(at)
	if fence != (locks.Fence{}) {
		attrs = append(attrs, attribute.String("tinystore.fence", FenceText(fence)))
	}
	ctx, span := tracer.Start(ctx, "tinystore.hold", trace.WithAttributes(attrs...))
	return ctx, func(lost error) {
		if lost == nil {
			span.SetAttributes(attribute.String("tinystore.ended", "released"))
		} else {
			span.SetAttributes(attribute.String("tinystore.ended", "lost"))
			failed(span, lost)
		}
		span.End()
	}
}

func (o *observer) GuardCheck(ctx context.Context, resource string, fence locks.Fence, backend string) func(error) {
	tracer := o.tracer()
	refused, _ := o.counter() // an error was Install's to tell
	if tracer == nil && refused == nil {
		return noEnd
	}
	if tracer == nil {
		tracer = tracenoop.NewTracerProvider().Tracer(Scope) // the counter alone
	}
	ctx, span := tracer.Start(ctx, "tinystore.guard.check", trace.WithAttributes(
		attribute.String("tinystore.resource", resource),
		attribute.String("tinystore.fence", FenceText(fence)),
		attribute.String("tinystore.backend", backend),
	))
	return func(err error) {
		var stale *locks.StaleError
		switch {
		case err == nil:
			span.SetAttributes(attribute.String("tinystore.outcome", "accepted"))
		case errors.As(err, &stale):
			span.SetAttributes(attribute.String("tinystore.outcome", "stale"),
				attribute.String("tinystore.largest", FenceText(stale.Largest)))
			if refused != nil {
				refused.Add(ctx, 1, metric.WithAttributes(attribute.String("tinystore.backend", backend)))
			}
		default:
			span.SetAttributes(attribute.String("tinystore.outcome", "error"))
			failed(span, err)
		}
		span.End()
	}
}
