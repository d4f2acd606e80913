package azureguard_test

import (
	"context"
	"testing"

	"tinystore.dev/go/azureguard"
	"tinystore.dev/go/internal/oteltest"
	"tinystore.dev/go/locks"
)

// Given the lease itself, a late write the guard refuses is told to the
// lease's store and traced by tinystoreotel, on the backend azure.
func TestGivenTheLeaseARefusalIsToldAndTraced(t *testing.T) {
	blob := fresh(t)
	oteltest.RefusalToldAndTraced(t, "azure", container+"/"+name(t, blob), func(ctx context.Context, under locks.Fenced) error {
		_, err := azureguard.UploadBuffer(ctx, blob, []byte("the summary"), under, nil)
		return err
	})
}
