package tinystore_test

import (
	"errors"
	"strings"
	"testing"

	"tinystore.dev/go/locks"
)

type chatID int64

type room struct{ n int }

func (r room) String() string { return "room-" + string(rune('0'+r.n)) }

// Each kind of key names the text it stands for: an integer is its decimal.
func TestKeysOfEachKindNameTheirText(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	cases := []struct {
		key  any
		same any
	}{
		{42, "42"},
		{int8(-7), "-7"},
		{uint64(18446744073709551615), "18446744073709551615"},
		{chatID(9), "9"},
		{[]byte("chat-1"), "chat-1"},
		{room{3}, "room-3"},
		{"plain", []byte("plain")},
	}
	for _, c := range cases {
		lease, err := summaries.Acquire(bg, c.key)
		if err != nil {
			t.Fatalf("acquire %#v: %v", c.key, err)
		}
		if _, ok, err := summaries.TryAcquire(bg, c.same); ok || err != nil {
			t.Errorf("%#v and %#v are not the same key (ok=%v err=%v)", c.key, c.same, ok, err)
		}
		_ = lease.Release(bg)
	}
}

func TestBadKeysAndNamesAreInvalid(t *testing.T) {
	store := openStore(t)
	for _, key := range []any{3.5, nil, struct{}{}, "", strings.Repeat("k", 1025), []byte{0xff, 0xfe}} {
		_, err := store.Locks("summaries").Acquire(bg, key)
		if !errors.Is(err, locks.ErrInvalid) {
			t.Errorf("key %#v: %v; want ErrInvalid", key, err)
		}
	}
	for _, name := range []string{"", "has space", strings.Repeat("n", 129), "bad/slash"} {
		_, err := store.Locks(name).Acquire(bg, 1)
		if !errors.Is(err, locks.ErrInvalid) {
			t.Errorf("name %q: %v; want ErrInvalid", name, err)
		}
	}
}
