package s3guard_test

import (
	"context"
	"testing"

	"tinystore.dev/go/internal/oteltest"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
)

// Given the lease itself, a late write the guard refuses is told to the
// lease's store and traced by tinystoreotel, on the backend s3.
func TestGivenTheLeaseARefusalIsToldAndTraced(t *testing.T) {
	client, b := bucket(t)
	oteltest.RefusalToldAndTraced(t, "s3", b+"/chats/42", func(ctx context.Context, under locks.Fenced) error {
		_, err := s3guard.Put(ctx, client, b, "chats/42", []byte("{}"), under)
		return err
	})
}
