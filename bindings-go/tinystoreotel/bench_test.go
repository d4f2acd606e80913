package tinystoreotel_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoreotel"
)

// drop is a span exporter that keeps nothing.
type drop struct{}

func (drop) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (drop) Shutdown(context.Context) error                             { return nil }

// benchHold is tinystore's BenchmarkHoldEmbedded (bench_test.go there):
// Hold round trips on one key of an embedded store.
func benchHold(b *testing.B) {
	store, err := tinystore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	summaries := store.Locks("summaries")
	ctx := context.Background()
	fn := func(ctx context.Context, lease *locks.Lease) error { return nil }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := summaries.Hold(ctx, 42, fn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
}

// What OpenTelemetry costs a hold: not installed (the main package as
// every program without this one has it), installed with no provider set (the global ones, no-op),
// and installed on the SDK's (spans batched to an exporter that drops
// them). `make bench-otel-go` runs them alternating.
func BenchmarkHoldOTel(b *testing.B) {
	b.Run("absent", func(b *testing.B) {
		tinystoreotel.Uninstall()
		benchHold(b)
	})
	b.Run("no-provider", func(b *testing.B) {
		// the global providers: none set
		if err := tinystoreotel.Install(nil, nil); err != nil {
			b.Fatal(err)
		}
		defer tinystoreotel.Uninstall()
		benchHold(b)
	})
	b.Run("provider", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(drop{}))
		defer tp.Shutdown(context.Background())
		mp := sdkmetric.NewMeterProvider()
		if err := tinystoreotel.Install(tp, mp); err != nil {
			b.Fatal(err)
		}
		defer tinystoreotel.Uninstall()
		benchHold(b)
	})
}
