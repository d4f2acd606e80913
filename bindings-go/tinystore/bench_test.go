package tinystore_test

import (
	"context"
	"testing"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// benchHold measures Hold round trips (acquire, run an empty fn, release)
// on one key, one goroutine at a time. Run by `make bench-go`.
func benchHold(b *testing.B, store *tinystore.Store) {
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

func BenchmarkHoldEmbedded(b *testing.B) {
	benchHold(b, openStore(b))
}

func BenchmarkHoldServed(b *testing.B) {
	benchHold(b, connect(b, serve(b)))
}
