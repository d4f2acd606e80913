// Package oteltest is the test the Go guards on object stores and
// DynamoDB share (s3guard, dynamoguard, gcsguard, azureguard): one
// guarded write given the lease, refused as late, told to the lease's
// store and traced by tinystoreotel on the OpenTelemetry SDK. A module of
// its own, so that only those modules' tests need the SDK.
package oteltest

import (
	"context"
	"errors"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoreotel"
	"tinystore.dev/go/tinystoretest"
)

// RefusalToldAndTraced checks a guard on backend (the name its spans and
// counter carry, such as "s3") whose write, write(ctx, under), is to
// resource: given the lease itself, a late write the guard refuses is
// told to the lease's store, whose status counts it per group; and with
// tinystoreotel installed each check is a tinystore.guard.check span
// (accepted, then stale, with the fence and the resource, read back from
// the SDK's in-memory exporter) and the refusal counts on backend.
func RefusalToldAndTraced(t *testing.T, backend, resource string, write func(ctx context.Context, under locks.Fenced) error) {
	t.Helper()
	ctx := context.Background()
	spans := tracetest.NewInMemoryExporter()
	reader := sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	if err := tinystoreotel.Install(tp, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tinystoreotel.Uninstall)
	kit := tinystoretest.New(t)
	group := "otel-" + backend
	chats := kit.Store().Locks(group)
	old, err := chats.Acquire(ctx, "42", locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	<-old.Done() // it ran out
	later, err := chats.Acquire(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	defer later.Release(ctx)
	if err := write(ctx, later); err != nil {
		t.Fatal(err)
	}
	var stale *tinystore.StaleError
	if err := write(ctx, old); !errors.As(err, &stale) || stale.Resource != resource {
		t.Fatalf("a late write given the lease: %v; want stale for %s", err, resource)
	}
	want := tinystore.RefusedStatus{Name: group, Kind: "lock", Refused: 1}
	status, err := kit.Store().Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.LateWritesRefused) != 1 || status.LateWritesRefused[0] != want {
		t.Fatalf("late writes refused: %v; want %v", status.LateWritesRefused, want)
	}

	var got [][3]string
	var largest string
	for _, s := range spans.GetSpans() {
		a := map[string]string{}
		for _, kv := range s.Attributes {
			a[string(kv.Key)] = kv.Value.Emit()
		}
		if s.Name == "tinystore.guard.check" && a["tinystore.resource"] == resource {
			got = append(got, [3]string{a["tinystore.fence"], a["tinystore.outcome"], a["tinystore.backend"]})
			if a["tinystore.outcome"] == "stale" {
				largest = a["tinystore.largest"]
			}
		}
	}
	wantSpans := [][3]string{
		{tinystoreotel.FenceText(later.Fence), "accepted", backend},
		{tinystoreotel.FenceText(old.Fence), "stale", backend},
	}
	if len(got) != 2 || got[0] != wantSpans[0] || got[1] != wantSpans[1] || largest != tinystoreotel.FenceText(later.Fence) {
		t.Fatalf("guard check spans: %v (largest %s); want %v (largest %s)", got, largest, wantSpans, tinystoreotel.FenceText(later.Fence))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	refused := int64(0)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "tinystore.guard.refused" {
				for _, p := range sum.DataPoints {
					if v, _ := p.Attributes.Value("tinystore.backend"); v.AsString() == backend {
						refused += p.Value
					}
				}
			}
		}
	}
	if refused != 1 {
		t.Fatalf("tinystore.guard.refused on %s: %d; want 1", backend, refused)
	}
}
