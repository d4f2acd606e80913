package tinystore

import (
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// Store is an open store: owned by this process, or reached over a
// connection. Safe for concurrent use.
type Store struct {
	n *native.Store
}

// Open opens the store directory dir, making it if missing. It fails with
// ErrInUse, naming the owner's pid, when another process owns the
// directory and does not serve it.
func Open(dir string) (*Store, error) {
	n, err := native.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Store{n: n}, nil
}

// Locks gives the group of exclusive locks called name (1 to 128 bytes of
// A-Z a-z 0-9 . _ - :, checked at the first acquire), with options that
// each call may override.
func (s *Store) Locks(name string, opts ...locks.Option) *locks.Locks {
	return locks.Open(s.n, name, opts...)
}

// Semaphore gives the group of semaphores called name, each key allowing
// limit holders at once.
func (s *Store) Semaphore(name string, limit int, opts ...locks.Option) *locks.Semaphore {
	return locks.OpenSemaphore(s.n, name, limit, opts...)
}

// Close releases every lease (their holders learn they lost them), fails
// every waiter with ErrClosed, and closes the store. Idempotent.
func (s *Store) Close() error {
	return s.n.Close()
}
