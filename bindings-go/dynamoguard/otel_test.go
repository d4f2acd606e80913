package dynamoguard_test

import (
	"context"
	"testing"

	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/internal/oteltest"
	"tinystore.dev/go/locks"
)

// Given the lease itself, a late write the guard refuses is told to the
// lease's store and traced by tinystoreotel, on the backend dynamodb.
func TestGivenTheLeaseARefusalIsToldAndTraced(t *testing.T) {
	d := newDB(t)
	resource := d.chats + "/42"
	oteltest.RefusalToldAndTraced(t, "dynamodb", resource, func(ctx context.Context, under locks.Fenced) error {
		return dynamoguard.PutItem(ctx, d.client, resource, d.put("42", "the summary"), under, dynamoguard.Register(d.register))
	})
}
