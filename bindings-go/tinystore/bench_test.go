package tinystore_test

import (
	"context"
	"sync/atomic"
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

// BenchmarkHoldServedParallel is 64 goroutines holding 64 keys through a
// served store at once: calls wait together, so their ends come through
// the completion queue (internal/native/completion.go), not the caller's
// own thread. Run by `make bench-go`.
func BenchmarkHoldServedParallel(b *testing.B) {
	summaries := connect(b, serve(b)).Locks("summaries")
	ctx := context.Background()
	fn := func(ctx context.Context, lease *locks.Lease) error { return nil }
	var next atomic.Int64
	b.SetParallelism(32) // 64 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := next.Add(1)
		for pb.Next() {
			if err := summaries.Hold(ctx, key, fn); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
}
