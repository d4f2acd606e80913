package tinystore

import (
	"time"

	"tinystore.dev/go/internal/groups"
	"tinystore.dev/go/internal/handles"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// What package tinystoretest reaches through (internal/handles).
func init() {
	handles.Store = func(store any) *native.Store {
		if s, ok := store.(*Store); ok && s != nil {
			return s.n
		}
		return nil
	}
	handles.NewStore = func(n *native.Store) any { return &Store{n: n} }
}

// Store is an open store: owned by this process, or reached over a
// connection. Safe for concurrent use.
type Store struct {
	n *native.Store
}

// Open opens the store directory dir, making it if missing. When another
// process owns the directory and serves it, Open connects to it (as
// Connect); when the owner does not serve it, Open fails with ErrInUse,
// naming the owner's pid.
func Open(dir string) (*Store, error) {
	n, err := native.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Store{n: n}, nil
}

// A ConnectOption sets how Connect reaches a server.
type ConnectOption func(*connectOptions)

type connectOptions struct {
	token   string
	timeout time.Duration
}

// Token gives the token a TCP server asks for (not needed on a Unix socket).
func Token(token string) ConnectOption {
	return func(o *connectOptions) { o.token = token }
}

// Timeout sets how long connecting and the greeting may take before
// ErrUnavailable (default 5s).
func Timeout(d time.Duration) ConnectOption {
	return func(o *connectOptions) { o.timeout = d }
}

// Connect connects to a store served by `tinystore serve` at address:
// "unix:PATH", "tcp://HOST:PORT", a socket's path, or a served store
// directory. It fails with ErrUnavailable when the server cannot be
// reached. Leases held over the connection are renewed in the background
// and reported lost when a renewal fails or the connection breaks.
func Connect(address string, opts ...ConnectOption) (*Store, error) {
	var o connectOptions
	for _, opt := range opts {
		opt(&o)
	}
	n, err := native.Connect(address, o.token, o.timeout)
	if err != nil {
		return nil, err
	}
	return &Store{n: n}, nil
}

// Locks gives the group of exclusive locks called name (1 to 128 bytes of
// A-Z a-z 0-9 . _ - :, checked at the first acquire), with options that
// each call may override.
func (s *Store) Locks(name string, opts ...locks.Option) *locks.Locks {
	return groups.Locks(s.n, name, optionFuncs(opts)).(*locks.Locks)
}

// Semaphore gives the group of semaphores called name, each key allowing
// limit holders at once.
func (s *Store) Semaphore(name string, limit int, opts ...locks.Option) *locks.Semaphore {
	return groups.Semaphore(s.n, name, limit, optionFuncs(opts)).(*locks.Semaphore)
}

// RWLocks gives the group of read-write locks called name (names as for
// Locks, apart from the lock group and semaphore of that name): readers
// share a key, a writer holds it alone with a fence, first come first
// served.
func (s *Store) RWLocks(name string, opts ...locks.Option) *locks.RWLocks {
	return groups.RWLocks(s.n, name, optionFuncs(opts)).(*locks.RWLocks)
}

// Election gives the election called name (a lock whose holder is named,
// the leader, whose fence is its term; names as for Locks, apart from the
// lock group and semaphore of that name), with options (TTL, Wait,
// NoRenew, MaxHold) that each campaign may override.
func (s *Store) Election(name string, opts ...locks.Option) *locks.Election {
	return groups.Election(s.n, name, optionFuncs(opts)).(*locks.Election)
}

// Close releases every lease (their holders learn they lost them), fails
// every waiter with ErrClosed, and closes the store. Idempotent.
func (s *Store) Close() error {
	return s.n.Close()
}

// optionFuncs is opts as internal/groups passes them to package locks.
func optionFuncs(opts []locks.Option) groups.Options {
	out := make(groups.Options, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}
