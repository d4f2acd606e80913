package tinystore_test

// Every case of the more_ways section of vectors/behaviour.json (read-write
// locks, weighted permits, several keys at once, MaxHold) against the real
// library: each case's steps on two handles of one store, an embedded store
// opened once (used twice), two connections to a real `tinystore serve`,
// and two connections to a real etcd.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

type moreWaysCase struct {
	ID            string            `json:"id"`
	Group         string            `json:"group"`
	Name          string            `json:"name"`
	Limit         int               `json:"limit"`
	Stores        []string          `json:"stores"`
	Steps         []moreWaysStep    `json:"steps"`
	NotApplicable map[string]string `json:"not_applicable"`
}

type moreWaysStep struct {
	Who        string       `json:"who"`
	Do         string       `json:"do"`
	Key        string       `json:"key"`
	Keys       []string     `json:"keys"`
	As         string       `json:"as"`
	Than       string       `json:"than"`
	Expect     string       `json:"expect"`
	MessageHas string       `json:"message_has"`
	Waiters    int          `json:"waiters"`
	Held       []shownLease `json:"held"`
	TTLms      *int64       `json:"ttl_ms"`
	Waitms     *int64       `json:"wait_ms"`
	MaxHoldms  *int64       `json:"max_hold_ms"`
	Weight     *int         `json:"weight"`
}

// shownLease is a lease as a status step expects it.
type shownLease struct {
	Kind   string `json:"kind"`
	Mode   string `json:"mode"`
	Weight int    `json:"weight"`
}

// patience bounds every wait of a step (a grant, a loss).
const patience = 20 * time.Second

func TestBehaviourMoreWays(t *testing.T) {
	cases := loadBehaviour(t).MoreWays.Cases
	if len(cases) == 0 {
		t.Fatal("vectors/behaviour.json has no more_ways cases")
	}
	for _, c := range cases {
		for _, kind := range withEtcd(c.Stores) {
			t.Run(c.ID+"@"+kind, func(t *testing.T) {
				if reason, ok := c.NotApplicable["go"]; ok {
					t.Skipf("not applicable to Go: %s", reason)
				}
				a, b := twoHandles(t, kind)
				r := &moreWaysRun{c: c, stores: map[string]*tinystore.Store{"a": a, "b": b},
					held: map[string][]holding{}, fences: map[string]locks.Fence{}, waiting: map[string]chan taken{}}
				for i, step := range c.Steps {
					r.step(t, i, step)
				}
			})
		}
	}
}

// withEtcd is the stores a case names, and etcd: every case runs on a
// real etcd too (two connections to one).
func withEtcd(stores []string) []string {
	if slices.Contains(stores, "etcd") {
		return stores
	}
	return append(slices.Clone(stores), "etcd")
}

// twoHandles gives two handles on one store of the kind named: the same
// embedded store twice, or two connections to one server or one etcd.
func twoHandles(t *testing.T, kind string) (a, b *tinystore.Store) {
	t.Helper()
	switch kind {
	case "embedded":
		store := openStore(t)
		return store, store
	case "served":
		s := serve(t)
		return connect(t, s), connect(t, s)
	case "etcd":
		address := "etcd://" + startEtcd(t) + "/more-ways"
		return connectTo(t, address), connectTo(t, address)
	}
	t.Fatalf("unknown store %q", kind)
	return nil, nil
}

// connectTo connects to address, closed at the end.
func connectTo(t *testing.T, address string) *tinystore.Store {
	t.Helper()
	store, err := tinystore.Connect(address)
	if err != nil {
		t.Fatalf("connect %s: %v", address, err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// A holding is what a label holds: a *locks.Lease or a *locks.Permit.
type holding interface {
	Key() string
	Release(ctx context.Context) error
	Done() <-chan struct{}
	Err() error
}

// taken is how a background acquire ended.
type taken struct {
	held []holding
	err  error
}

// moreWaysRun is one case's run: its handles and what each label holds.
type moreWaysRun struct {
	c       moreWaysCase
	stores  map[string]*tinystore.Store
	held    map[string][]holding
	fences  map[string]locks.Fence // a label's write lease's fence, kept after release
	waiting map[string]chan taken
}

func (r *moreWaysRun) store(t *testing.T, s moreWaysStep) *tinystore.Store {
	t.Helper()
	store, ok := r.stores[s.Who]
	if !ok {
		t.Fatalf("step %q names no known handle (who %q)", s.Do, s.Who)
	}
	return store
}

func stepOptions(s moreWaysStep) []locks.Option {
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	var opts []locks.Option
	if s.TTLms != nil {
		opts = append(opts, locks.TTL(ms(*s.TTLms)))
	}
	if s.Waitms != nil {
		opts = append(opts, locks.Wait(ms(*s.Waitms)))
	}
	if s.MaxHoldms != nil {
		opts = append(opts, locks.MaxHold(ms(*s.MaxHoldms)))
	}
	if s.Weight != nil {
		opts = append(opts, locks.Weight(*s.Weight))
	}
	return opts
}

// take does what a try or acquire step names on the case's group of
// store: held is empty when a try found the key taken.
func (r *moreWaysRun) take(ctx context.Context, store *tinystore.Store, s moreWaysStep) ([]holding, error) {
	opts := stepOptions(s)
	one := func(h holding, ok bool, err error) ([]holding, error) {
		if err != nil || !ok {
			return nil, err
		}
		return []holding{h}, nil
	}
	name := r.c.Name
	switch r.c.Group + "/" + s.Do {
	case "locks/try_acquire":
		return one(tryOf(store.Locks(name).TryAcquire(ctx, s.Key, opts...)))
	case "locks/acquire":
		return one(acquired(store.Locks(name).Acquire(ctx, s.Key, opts...)))
	case "locks/acquire_all":
		keys := make([]any, len(s.Keys))
		for i, k := range s.Keys {
			keys[i] = k
		}
		leases, err := store.Locks(name).AcquireAll(ctx, keys, opts...)
		held := make([]holding, len(leases))
		for i, l := range leases {
			held[i] = l
		}
		return held, err
	case "semaphore/try_acquire":
		return one(tryOf(store.Semaphore(name, r.c.Limit).TryAcquire(ctx, s.Key, opts...)))
	case "semaphore/acquire":
		return one(acquired(store.Semaphore(name, r.c.Limit).Acquire(ctx, s.Key, opts...)))
	case "rw_locks/try_read":
		return one(tryOf(store.RWLocks(name).TryAcquireRead(ctx, s.Key, opts...)))
	case "rw_locks/try_write":
		return one(tryOf(store.RWLocks(name).TryAcquireWrite(ctx, s.Key, opts...)))
	case "rw_locks/acquire_read":
		return one(acquired(store.RWLocks(name).AcquireRead(ctx, s.Key, opts...)))
	case "rw_locks/acquire_write":
		return one(acquired(store.RWLocks(name).AcquireWrite(ctx, s.Key, opts...)))
	}
	return nil, fmt.Errorf("a %s group cannot %s", r.c.Group, s.Do)
}

// acquired turns an Acquire's (held, err) into (holding, ok, err).
func acquired[H holding](h H, err error) (holding, bool, error) {
	return h, err == nil, err
}

// tryOf turns a TryAcquire's (held, ok, err) into (holding, ok, err).
func tryOf[H holding](h H, ok bool, err error) (holding, bool, error) {
	return h, ok, err
}

func (r *moreWaysRun) step(t *testing.T, i int, s moreWaysStep) {
	t.Helper()
	at := fmt.Sprintf("step %d (%s %s)", i, s.Who, s.Do)
	switch s.Do {
	case "try_acquire", "try_read", "try_write", "acquire_all":
		ctx, cancel := context.WithTimeout(bg, patience)
		defer cancel()
		held, err := r.take(ctx, r.store(t, s), s)
		r.expect(t, at, s, held, err)
	case "acquire", "acquire_read", "acquire_write":
		ctx, cancel := context.WithCancel(bg)
		t.Cleanup(cancel)
		store, ended := r.store(t, s), make(chan taken, 1)
		go func() {
			held, err := r.take(ctx, store, s)
			ended <- taken{held, err}
		}()
		r.waiting[s.As] = ended
		if s.Waiters > 0 {
			untilWaiting(t, store, r.c.Name, s.Key, s.Waiters)
		}
	case "granted":
		select {
		case got := <-r.waiting[s.As]:
			if got.err != nil {
				t.Fatalf("%s: %s was not granted: %v", at, s.As, got.err)
			}
			r.keep(s.As, got.held)
		case <-time.After(patience):
			t.Fatalf("%s: %s was not granted in %v", at, s.As, patience)
		}
	case "release":
		for _, h := range r.labelled(t, s.As) {
			if err := h.Release(bg); err != nil {
				t.Fatalf("%s: release %s: %v", at, s.As, err)
			}
		}
	case "lost":
		h := r.labelled(t, s.As)[0]
		within(t, h.Done(), s.As+" lost")
		var e *locks.Error
		if err := h.Err(); !errors.As(err, &e) || string(e.Code) != s.Expect || !strings.Contains(e.Message, s.MessageHas) {
			t.Fatalf("%s: %s was lost with %v; want %s naming %q", at, s.As, err, s.Expect, s.MessageHas)
		}
	case "no_fence":
		for _, h := range r.labelled(t, s.As) {
			if _, ok := h.(*locks.Permit); !ok {
				t.Fatalf("%s: %s holds %v, which has a fence", at, s.As, h)
			}
		}
	case "fence_above":
		above, below := r.fence(t, s.As), r.fence(t, s.Than)
		if !below.Less(above) {
			t.Fatalf("%s: the fence of %s, %v, is not above that of %s, %v", at, s.As, above, s.Than, below)
		}
	case "status":
		r.status(t, at, s)
	default:
		t.Fatalf("%s: unknown step", at)
	}
}

// expect checks a try or acquire_all step's outcome against its expect.
func (r *moreWaysRun) expect(t *testing.T, at string, s moreWaysStep, held []holding, err error) {
	t.Helper()
	want := s.Expect
	if want == "" {
		want = "granted"
	}
	var e *locks.Error
	switch {
	case want == "granted" && err == nil && len(held) > 0:
		r.keep(s.As, held)
		if s.Do == "acquire_all" {
			r.checkAll(t, at, s.Keys, held)
		}
	case want == "refused" && err == nil && len(held) == 0:
	case errors.As(err, &e) && string(e.Code) == want:
		if !strings.Contains(e.Message, s.MessageHas) {
			t.Fatalf("%s: %v does not name %q", at, err, s.MessageHas)
		}
	default:
		t.Fatalf("%s: got %d held and error %v; want %s", at, len(held), err, want)
	}
}

// checkAll checks the leases of an acquire_all: in the order of keys, each
// with its own fence.
func (r *moreWaysRun) checkAll(t *testing.T, at string, keys []string, held []holding) {
	t.Helper()
	seen := map[locks.Fence]bool{}
	for i, h := range held {
		lease, ok := h.(*locks.Lease)
		if !ok || i >= len(keys) || lease.Key() != keys[i] || seen[lease.Fence] {
			t.Fatalf("%s: leases %v for keys %q; want one each, in order, each with its own fence", at, held, keys)
		}
		seen[lease.Fence] = true
	}
	if len(held) != len(keys) {
		t.Fatalf("%s: %d leases for %d keys", at, len(held), len(keys))
	}
}

func (r *moreWaysRun) keep(label string, held []holding) {
	if label == "" {
		return
	}
	r.held[label] = held
	if lease, ok := held[0].(*locks.Lease); ok && len(held) == 1 {
		r.fences[label] = lease.Fence
	}
}

func (r *moreWaysRun) labelled(t *testing.T, label string) []holding {
	t.Helper()
	held, ok := r.held[label]
	if !ok || len(held) == 0 {
		t.Fatalf("nothing is held under %q", label)
	}
	return held
}

func (r *moreWaysRun) fence(t *testing.T, label string) locks.Fence {
	t.Helper()
	f, ok := r.fences[label]
	if !ok {
		t.Fatalf("%q holds no lease with a fence", label)
	}
	return f
}

// status checks that the status shows exactly the leases of the step's
// held on its key of the case's group, as a multiset.
func (r *moreWaysRun) status(t *testing.T, at string, s moreWaysStep) {
	t.Helper()
	st, err := r.stores["a"].Status(bg)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	var got []shownLease
	for _, h := range st.Held {
		if h.Name == r.c.Name && h.Key == s.Key {
			got = append(got, shownLease{Kind: h.Kind, Mode: h.Mode, Weight: h.Weight})
		}
	}
	want := append([]shownLease(nil), s.Held...)
	for _, list := range [][]shownLease{got, want} {
		sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: the status shows %+v on %s/%s; want %+v", at, got, r.c.Name, s.Key, want)
	}
}
