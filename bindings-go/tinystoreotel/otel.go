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
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"tinystore.dev/go/locks"
)

// Scope is the instrumentation scope of the spans and the counter.
const Scope = "tinystore.dev/go/tinystoreotel"

type observer struct {
	tracer  trace.Tracer
	refused metric.Int64Counter
}

// Install makes tinystore trace its waits, holds and guard checks with tp
// and count late writes refused with mp, from now on in this process; nil
// stands for the global provider (otel.GetTracerProvider,
// otel.GetMeterProvider), which follows a provider set later. An error
// only when the counter cannot be made.
func Install(tp trace.TracerProvider, mp metric.MeterProvider) error {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	refused, err := mp.Meter(Scope).Int64Counter("tinystore.guard.refused",
		metric.WithUnit("{write}"),
		metric.WithDescription("Late writes refused by tinystore's guards as stale"))
	if err != nil {
		return err
	}
	locks.SetObserver(&observer{tracer: tp.Tracer(Scope), refused: refused})
	return nil
}

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

func (o *observer) Wait(ctx context.Context, at locks.Place) func(*locks.Fence, error) {
	_, span := o.tracer.Start(ctx, "tinystore.wait", trace.WithAttributes(place(at)...))
	start := time.Now()
	return func(fence *locks.Fence, err error) {
		waited := float64(time.Since(start)) / float64(time.Millisecond)
		span.SetAttributes(attribute.Float64("tinystore.waited_ms", waited))
		if err != nil {
			failed(span, err)
		} else if fence != nil {
			span.SetAttributes(attribute.String("tinystore.fence", FenceText(*fence)))
		}
		span.End()
	}
}

func (o *observer) Hold(ctx context.Context, at locks.Place, fence *locks.Fence) (context.Context, func(error)) {
	attrs := place(at)
	if fence != nil {
		attrs = append(attrs, attribute.String("tinystore.fence", FenceText(*fence)))
	}
	ctx, span := o.tracer.Start(ctx, "tinystore.hold", trace.WithAttributes(attrs...))
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
	ctx, span := o.tracer.Start(ctx, "tinystore.guard.check", trace.WithAttributes(
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
			o.refused.Add(ctx, 1, metric.WithAttributes(attribute.String("tinystore.backend", backend)))
		default:
			span.SetAttributes(attribute.String("tinystore.outcome", "error"))
			failed(span, err)
		}
		span.End()
	}
}
