package tinystore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// rwRoom counts the readers and writers inside and remembers whether a
// writer ever had company.
type rwRoom struct {
	mu               sync.Mutex
	readers, writers int
	mostReaders      int
	crowdedWriter    bool
}

func (r *rwRoom) visit(write bool, during func()) {
	r.mu.Lock()
	if write {
		r.writers++
	} else {
		r.readers++
		r.mostReaders = max(r.mostReaders, r.readers)
	}
	if r.writers > 1 || (r.writers == 1 && r.readers > 0) {
		r.crowdedWriter = true
	}
	r.mu.Unlock()
	during()
	r.mu.Lock()
	if write {
		r.writers--
	} else {
		r.readers--
	}
	r.mu.Unlock()
}

// Readers and writers mixed at random on one key: a writer is never inside
// with anyone else, readers do share, and write fences rise in grant order.
func TestRWLocksAWriterIsNeverInsideWithAnyoneElse(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		docs := store.RWLocks("docs")
		var inside rwRoom
		var fences struct {
			sync.Mutex
			last locks.Fence
		}
		hammer(t, 8, 30, func() error {
			if rand.IntN(4) == 0 {
				return docs.HoldWrite(bg, "k", func(ctx context.Context, lease *locks.Lease) error {
					fences.Lock()
					rising := fences.last.Less(lease.Fence)
					fences.last = lease.Fence
					fences.Unlock()
					if !rising {
						return errors.New("a write fence did not rise")
					}
					inside.visit(true, runtime.Gosched)
					return nil
				})
			}
			return docs.HoldRead(bg, "k", func(ctx context.Context, permit *locks.Permit) error {
				inside.visit(false, func() { time.Sleep(time.Millisecond) })
				return nil
			})
		})
		if inside.crowdedWriter {
			t.Fatal("a writer was inside with another holder")
		}
		if inside.mostReaders < 2 {
			t.Fatalf("readers never shared the key (at most %d inside)", inside.mostReaders)
		}
	})
}

// A write lease has a fence and shows as a write; a read gives a permit;
// a writer waiting holds back a later TryAcquireRead.
func TestRWLocksWriteLeaseAndReadPermit(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		docs := store.RWLocks("docs", locks.TTL(30*time.Second))
		defer docs.Close()
		reader, err := docs.AcquireRead(bg, 7)
		if err != nil {
			t.Fatal(err)
		}
		writing := make(chan *locks.Lease, 1)
		go func() {
			lease, err := docs.AcquireWrite(bg, "7")
			if err != nil {
				t.Error(err)
			}
			writing <- lease
		}()
		untilWaiting(t, store, "docs", "7", 1)
		if _, ok, err := docs.TryAcquireRead(bg, 7); ok || err != nil {
			t.Fatalf("a reader passed a waiting writer: ok=%v err=%v", ok, err)
		}
		if err := reader.Release(bg); err != nil {
			t.Fatal(err)
		}
		writer := <-writing
		if writer == nil {
			t.Fatal("the writer got no lease")
		}
		defer writer.Release(bg)
		st, err := store.Status(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Held) != 1 || st.Held[0].Kind != "rwlock" || st.Held[0].Mode != "write" ||
			st.Held[0].Fence == nil || *st.Held[0].Fence != writer.Fence {
			t.Fatalf("the status shows %+v; want the write lease with fence %v", st.Held, writer.Fence)
		}
		if _, ok, err := docs.TryAcquireWrite(bg, 7); ok || err != nil {
			t.Fatalf("a second writer: ok=%v err=%v", ok, err)
		}
	})
}

// Weighted permits of random weights never fill a key past its limit.
func TestWeightedPermitsNeverPassTheLimit(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		pool := store.Semaphore("pool", 5)
		var mu sync.Mutex
		used, most := 0, 0
		hammer(t, 8, 20, func() error {
			weight := 1 + rand.IntN(5)
			return pool.Hold(bg, "k", func(ctx context.Context, permit *locks.Permit) error {
				mu.Lock()
				used += weight
				most = max(most, used)
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				used -= weight
				mu.Unlock()
				return nil
			}, locks.Weight(weight))
		})
		if most > 5 || most < 1 {
			t.Fatalf("%d places used at once; the limit is 5", most)
		}
		_, err := pool.Acquire(bg, "k", locks.Weight(-1))
		if !errors.Is(err, locks.ErrInvalid) {
			t.Fatalf("a weight of -1: %v; want ErrInvalid", err)
		}
	})
}
