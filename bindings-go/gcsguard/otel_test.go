package gcsguard_test

import (
	"context"
	"testing"

	"tinystore.dev/go/gcsguard"
	"tinystore.dev/go/internal/oteltest"
	"tinystore.dev/go/locks"
)

// Given the lease itself, a late write the guard refuses is told to the
// lease's store and traced by tinystoreotel, on the backend gcs.
func TestGivenTheLeaseARefusalIsToldAndTraced(t *testing.T) {
	obj := object(t)
	oteltest.RefusalToldAndTraced(t, "gcs", bucket+"/"+obj.ObjectName(), func(ctx context.Context, under locks.Fenced) error {
		_, err := gcsguard.Upload(ctx, obj, []byte("the summary"), under)
		return err
	})
}
