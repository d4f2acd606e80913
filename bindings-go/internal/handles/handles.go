// Package handles lets package tinystoretest reach the native handles
// behind package tinystore's Store and package locks's leases, permits and
// leaderships, and make a Store of a native one, and lets the guards
// (through internal/guardio) read the process's locks.Observer, without
// either package exporting a function that takes or gives an internal
// type or exists only for another package (as internal/groups does for
// the groups): tinystore and locks set these when they are loaded, and
// tinystoretest and guardio, which import them, call them.
package handles

import "tinystore.dev/go/internal/native"

// Set by package tinystore's init (tinystore/store.go).
var (
	// Store is the native store of a *tinystore.Store (nil for a nil one).
	Store func(store any) *native.Store
	// NewStore is a *tinystore.Store on the native store n.
	NewStore func(n *native.Store) any
)

// Set by package locks's init (locks/open.go).
var (
	// Held is the native handle of a locks.Holding (a *Lease, *Permit or
	// *Leadership); nil for a nil one.
	Held func(held any) *native.Held
	// KeyText is key as text, read as package locks reads keys (a
	// string, an integer, []byte or a fmt.Stringer), or its ErrInvalid
	// error.
	KeyText func(key any) (string, error)
	// Observer is the process's locks.Observer (locks.SetObserver), nil
	// when none is set.
	Observer func() any
)
