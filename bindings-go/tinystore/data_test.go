package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// dataOf is each held key's data in store's status, by "name/key".
func dataOf(t *testing.T, store *tinystore.Store) map[string]string {
	t.Helper()
	status, err := store.Status(bg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, h := range status.Held {
		seen[h.Name+"/"+h.Key] = h.Data
	}
	return seen
}

// keptDefaultedAndRefused is what every store does with data on a lease:
// locks.Data on a group and per call, seen in Status; the default
// "HOST:PID" of this process; "" attaches nothing; more than 1024 bytes,
// or bytes that are not UTF-8, fail with ErrInvalid and grant nothing.
func keptDefaultedAndRefused(t *testing.T, store *tinystore.Store) {
	jobs := store.Locks("jobs", locks.Data("worker 3"))
	a, err := jobs.Acquire(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := jobs.Acquire(bg, "b", locks.Data("é on call\nline 2 with 100%"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := jobs.Acquire(bg, "d", locks.Data(""))
	if err != nil {
		t.Fatal(err)
	}
	p, ok, err := store.Semaphore("pool", 3).TryAcquire(bg, "p", locks.Data("permit 1"), locks.Weight(2))
	if err != nil || !ok {
		t.Fatalf("permit: ok=%v err=%v", ok, err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	err = store.Locks("plain").Hold(bg, "c", func(context.Context, *locks.Lease) error {
		return store.RWLocks("docs").HoldRead(bg, "r", func(context.Context, *locks.Permit) error {
			seen := dataOf(t, store)
			want := map[string]string{
				"jobs/a":  "worker 3",
				"jobs/b":  "é on call\nline 2 with 100%",
				"jobs/d":  "",
				"pool/p":  "permit 1",
				"plain/c": fmt.Sprintf("%s:%d", host, os.Getpid()),
				"docs/r":  "reader",
			}
			for key, data := range want {
				if got, held := seen[key]; !held || got != data {
					return fmt.Errorf("%s: data %q (held %v), want %q", key, got, held, data)
				}
			}
			return nil
		}, locks.Data("reader"))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, release := range []func(context.Context) error{a.Release, b.Release, d.Release, p.Release} {
		if err := release(bg); err != nil {
			t.Fatal(err)
		}
	}

	for _, refused := range []struct {
		group *locks.Locks
		opts  []locks.Option
		says  string
	}{
		{jobs, []locks.Option{locks.Data(strings.Repeat("x", 1025))}, "data must be at most 1024 bytes, not 1025"},
		{store.Locks("long", locks.Data(strings.Repeat("é", 513))), nil, "at most 1024 bytes, not 1026"},
		{jobs, []locks.Option{locks.Data("\xff")}, "data is not UTF-8 text"},
	} {
		_, err := refused.group.Acquire(bg, "e", refused.opts...)
		if !errors.Is(err, locks.ErrInvalid) || !strings.Contains(err.Error(), refused.says) {
			t.Fatalf("acquire with bad data: %v; want ErrInvalid saying %q", err, refused.says)
		}
	}
	seen := dataOf(t, store)
	if _, held := seen["jobs/e"]; held {
		t.Fatal("a refused acquire was granted")
	}
	full := strings.Repeat("é", 512)
	e, ok, err := jobs.TryAcquire(bg, "e", locks.Data(full))
	if err != nil || !ok {
		t.Fatalf("the refused acquires left the key held: ok=%v err=%v", ok, err)
	}
	if got := dataOf(t, store)["jobs/e"]; got != full {
		t.Fatalf("1024 bytes of data: %q", got)
	}
	_ = e.Release(bg)
}

func TestDataOnALeaseIsKeptDefaultedAndRefused(t *testing.T) {
	backends(t, keptDefaultedAndRefused)
}

func TestDataOnALeaseOnEtcd(t *testing.T) {
	store, err := tinystore.Connect("etcd://" + startEtcd(t) + "/test-go-data")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer store.Close()
	keptDefaultedAndRefused(t, store)
}
