package dynamoguard_test

// The DynamoDB guard when the answer to its transaction is lost and the
// SDK makes it again, on moto's server through a proxy that forwards the
// first TransactWriteItems, waits for moto's answer, lets another writer
// in if the test says so, then closes the connection without a byte of
// that answer. The SDK sees the connection closed, and retries.
//
// Moto does not answer a retry with the same ClientRequestToken from the
// first attempt's outcome: the retry is judged again. A write that landed
// and was then overtaken is cancelled on its retry, and a refusal retried
// is refused again; the guard says unavailable for both and tells the
// lease's store nothing; a refusal is told only when no answer was lost.

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/internal/losingproxy"
	"tinystore.dev/go/internal/superseded"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// transaction picks moto's TransactWriteItems, whose answer the proxy
// loses.
func transaction(request []byte) bool {
	return bytes.Contains(request, []byte("DynamoDB_20120810.TransactWriteItems"))
}

func TestALostAnswerRetriedIsAcceptedOrInDoubtNeverStale(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	upstream := endpoint(t)
	leases := superseded.Open(t)
	older, newer := leases.Older, leases.Newer
	put := func(client *dynamodb.Client, resource, id, summary string, under locks.Fenced) error {
		return dynamoguard.PutItem(ctx, client, resource, d.put(id, summary), under, dynamoguard.Register(d.register))
	}

	// Accepted, its answer lost: the retry carries the same fence, which
	// is accepted again.
	proxy, lost := losingproxy.Start(t, upstream, transaction, func() {})
	if err := put(clientAt(proxy), "chats/alone", "alone", "by older", older); err != nil {
		t.Fatal(err)
	}
	if !lost() || d.summary("alone") != "by older" {
		t.Fatalf("lost %v, summary %q", lost(), d.summary("alone"))
	}

	// Accepted, its answer lost, overtaken before the retry: the older
	// write landed, so it may not be called stale.
	overtaking := make(chan error, 1)
	proxy, _ = losingproxy.Start(t, upstream, transaction, func() {
		overtaking <- put(d.client, "chats/overtaken", "overtaken-newer", "by newer", newer.Fence)
	})
	superseded.InDoubt(t, put(clientAt(proxy), "chats/overtaken", "overtaken", "by older", older))
	if err := <-overtaking; err != nil {
		t.Fatalf("the newer writer: %v", err)
	}
	if got := d.summary("overtaken"); got != "by older" {
		t.Fatalf("the older write landed before the newer, yet reads %q", got)
	}
	if got := d.summary("overtaken-newer"); got != "by newer" {
		t.Fatalf("the newer write reads %q", got)
	}
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// Refused, its answer lost, refused again on the retry: in doubt the
	// same, for the guard cannot tell it from the case above.
	if err := put(d.client, "chats/refused", "refused-newer", "by newer", newer); err != nil {
		t.Fatal(err)
	}
	proxy, lost = losingproxy.Start(t, upstream, transaction, func() {})
	superseded.InDoubt(t, put(clientAt(proxy), "chats/refused", "refused", "by older", older))
	if !lost() || d.summary("refused") != "none" {
		t.Fatalf("lost %v, summary %q", lost(), d.summary("refused"))
	}
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// The same refusal with its answer kept is stale, and told: the one
	// refusal the store counts, so that neither case above was told.
	stale(t, put(d.client, "chats/refused", "refused", "by older", older), "chats/refused", older.Fence, newer.Fence)
	want := tinystore.RefusedStatus{Name: "chats", Kind: "lock", Refused: 1}
	if got := leases.Refused(t); len(got) != 1 || got[0] != want {
		t.Fatalf("late writes refused: %v; want %v", got, want)
	}
}
