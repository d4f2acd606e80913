package tinystore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"tinystore.dev/go/internal/native"
)

// DefaultStatusLimit is how many held leases and keys with waiters Status
// shows when no StatusLimit is given.
const DefaultStatusLimit = 1000

// Status is the state of a store: its epoch, the fences given, the leases
// held and the keys with callers waiting, one page of each (by name, then
// key; see StatusPage).
type Status struct {
	// Epoch is the store's epoch: the high 64 bits of its fences.
	Epoch uint64
	// FencesGiven is how many fences the store gave since it opened.
	FencesGiven uint64
	// LastFence is the last fence given; nil when none was.
	LastFence *Fence
	// GraceLeft is the grace left after an unclean stop (no grants until
	// then); zero when there is none.
	GraceLeft time.Duration
	// Held are the leases held now (this page of them).
	Held []HeldStatus
	// Waiting are the keys with callers waiting (this page of them).
	Waiting []WaitingStatus
	// HeldTotal is how many leases are held in all.
	HeldTotal int
	// WaitingTotal is how many keys have callers waiting in all.
	WaitingTotal int
	// More tells that more held leases or keys with waiters come after
	// this page.
	More bool
	// Testing tells that this is a test store, whose time and leases the
	// test kit (package tinystoretest) controls: made by the kit, or
	// served with `tinystore serve --testing`.
	Testing bool
	// LongestWaits are the keys whose first caller has waited longest,
	// longest first: at most 10, whatever the page (empty on etcd).
	LongestWaits []WaitingStatus
	// LateWritesRefused are the late writes guards refused, per group, as
	// the leases' holders told the store since it opened, by name then
	// kind: every group, whatever the page (empty on etcd, which counts
	// none).
	LateWritesRefused []RefusedStatus
}

// RefusedStatus is a group's late writes refused by guards.
type RefusedStatus struct {
	// Name is the group's name ("other" past the first 1,000 groups
	// counted); Kind its kind, as in HeldStatus.
	Name, Kind string
	// Refused is how many writes its leases' guards refused as stale.
	Refused uint64
}

// HeldStatus is one held lease, as a status shows it.
type HeldStatus struct {
	// Name is the group's (or election's) name; Key the key held (empty
	// for an election's leadership).
	Name, Key string
	// Kind is the kind of group: "lock", "semaphore", "rwlock" or
	// "election".
	Kind string
	// Mode is "read" or "write" for a read-write lock's lease; else "".
	Mode string
	// Weight is how many of its key's places it takes: a weighted permit's
	// weight, all of a read-write lock's places for a write lease, else 1.
	Weight int
	// Fence is the lease's fence; nil for a semaphore permit and a read
	// lease.
	Fence *Fence
	// TTL is the lease's TTL; Left the time until it runs out unless
	// renewed.
	TTL, Left time.Duration
	// Renewing tells whether the store itself renews it.
	Renewing bool
	// Leader is the leader's value for an election's leadership; else "".
	Leader string
	// Data is what its holder said about itself when it acquired
	// (locks.Data; by default its "HOST:PID"); "" when it said nothing.
	Data string
}

// WaitingStatus is a key with callers waiting for it.
type WaitingStatus struct {
	// Name is the group's name; Key the key waited for.
	Name, Key string
	// Kind is the kind of group, as in HeldStatus.
	Kind string
	// Waiters is how many callers wait.
	Waiters int
	// Waited is how long the first caller in line has waited (zero on
	// etcd, whose entries carry no time).
	Waited time.Duration
}

// A StatusOption picks the page of a status.
type StatusOption func(*statusPage)

type statusPage struct{ offset, limit int }

// StatusPage shows the limit held leases and keys with waiters (1 to
// 10,000) after the first offset of each.
func StatusPage(offset, limit int) StatusOption {
	return func(p *statusPage) { p.offset, p.limit = offset, limit }
}

// Status gives the store's status: each held lease (name, key, kind, mode,
// weight, fence, TTL and time left) and each key with callers waiting, the first
// DefaultStatusLimit of each unless StatusPage picks another page. It
// fails with ErrInvalid for a limit out of range. ctx ending gives up
// waiting for the reply (the call itself only reads).
func (s *Store) Status(ctx context.Context, opts ...StatusOption) (*Status, error) {
	page := statusPage{limit: DefaultStatusLimit}
	for _, opt := range opts {
		opt(&page)
	}
	if page.offset < 0 || page.limit < 0 {
		return nil, native.Invalid(fmt.Sprintf("a status page of offset %d and limit %d: both must be from 0", page.offset, page.limit))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type reply struct {
		text []byte
		err  error
	}
	done := make(chan reply, 1)
	go func() {
		text, err := s.n.Status(page.offset, page.limit)
		done <- reply{text, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return decodeStatus(r.text)
	}
}

// wireStatus is the core's status as JSON, in its own field names.
type wireStatus struct {
	Epoch        uint64        `json:"epoch"`
	FencesGiven  uint64        `json:"fences_given"`
	LastFence    *Fence        `json:"last_fence"`
	GraceLeftMs  *uint64       `json:"grace_left_ms"`
	Held         []wireHeld    `json:"held"`
	Waiting      []wireWaiting `json:"waiting"`
	HeldTotal    int           `json:"held_total"`
	WaitingTotal int           `json:"waiting_total"`
	More         bool          `json:"more"`
	Testing      bool          `json:"testing"`
	LongestWaits []wireWaiting `json:"longest_waits"`
	Refused      []wireRefused `json:"late_writes_refused"`
}

type wireRefused struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Refused uint64 `json:"refused"`
}

type wireHeld struct {
	Name     string  `json:"name"`
	Key      string  `json:"key"`
	Fence    *Fence  `json:"fence"`
	TTLMs    uint64  `json:"ttl_ms"`
	LeftMs   uint64  `json:"left_ms"`
	Renewing bool    `json:"renewing"`
	Leader   *string `json:"leader"`
	Kind     string  `json:"kind"`
	Mode     *string `json:"mode"`
	Weight   int     `json:"weight"`
	Data     *string `json:"data"`
}

type wireWaiting struct {
	Name     string  `json:"name"`
	Key      string  `json:"key"`
	Kind     string  `json:"kind"`
	Waiters  int     `json:"waiters"`
	WaitedMs *uint64 `json:"waited_ms"`
}

func (q wireWaiting) decode() WaitingStatus {
	w := WaitingStatus{Name: q.Name, Key: q.Key, Kind: q.Kind, Waiters: q.Waiters}
	if q.WaitedMs != nil {
		w.Waited = millis(*q.WaitedMs)
	}
	return w
}

func millis(ms uint64) time.Duration { return time.Duration(ms) * time.Millisecond }

// decodeStatus converts the core's JSON into a Status, field by field.
func decodeStatus(text []byte) (*Status, error) {
	var w wireStatus
	if err := json.Unmarshal(text, &w); err != nil {
		return nil, fmt.Errorf("tinystore: a status the library wrote does not decode: %w", err)
	}
	s := &Status{
		Epoch:        w.Epoch,
		FencesGiven:  w.FencesGiven,
		LastFence:    w.LastFence,
		Held:         make([]HeldStatus, 0, len(w.Held)),
		Waiting:      make([]WaitingStatus, 0, len(w.Waiting)),
		HeldTotal:    w.HeldTotal,
		WaitingTotal: w.WaitingTotal,
		More:         w.More,
		Testing:      w.Testing,
	}
	if w.GraceLeftMs != nil {
		s.GraceLeft = millis(*w.GraceLeftMs)
	}
	for _, h := range w.Held {
		held := HeldStatus{Name: h.Name, Key: h.Key, Kind: h.Kind, Weight: h.Weight, Fence: h.Fence,
			TTL: millis(h.TTLMs), Left: millis(h.LeftMs), Renewing: h.Renewing}
		if h.Leader != nil {
			held.Leader = *h.Leader
		}
		if h.Mode != nil {
			held.Mode = *h.Mode
		}
		if h.Data != nil {
			held.Data = *h.Data
		}
		s.Held = append(s.Held, held)
	}
	for _, q := range w.Waiting {
		s.Waiting = append(s.Waiting, q.decode())
	}
	for _, q := range w.LongestWaits {
		s.LongestWaits = append(s.LongestWaits, q.decode())
	}
	for _, r := range w.Refused {
		s.LateWritesRefused = append(s.LateWritesRefused, RefusedStatus(r))
	}
	return s, nil
}
