package tinystore_test

import (
	"testing"

	"tinystore.dev/go/tinystore"
)

// A store closed with a lease still in hand can be opened again at once,
// and its next fence is larger than every fence before the close.
func TestAReopenedStoreGivesLargerFences(t *testing.T) {
	dir := t.TempDir()
	store, err := tinystore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, err := store.Locks("summaries").Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := tinystore.Open(dir)
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	defer again.Close()
	after, err := again.Locks("summaries").Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !before.Fence.Less(after.Fence) || before.Fence.Epoch >= after.Fence.Epoch {
		t.Fatalf("after reopening, fence %#v is not above %#v in a later epoch", after.Fence, before.Fence)
	}
	_ = after.Release(bg)
	_ = before.Release(bg)
}
