// Package groups lets package tinystore make package locks's groups from
// its native store, without locks exporting a function that takes an
// internal type: locks sets these makers when it is loaded (locks/open.go),
// and tinystore, which imports locks, calls them. Each gives a *locks.Locks,
// *locks.Semaphore, *locks.RWLocks or *locks.Election.
package groups

import "tinystore.dev/go/internal/native"

// Options are a call's options, each a locks.Option, which only package
// locks can read.
type Options = []any

// The makers, set by package locks's init.
var (
	Locks     func(s *native.Store, name string, opts Options) any
	Semaphore func(s *native.Store, name string, limit int, opts Options) any
	RWLocks   func(s *native.Store, name string, opts Options) any
	Election  func(s *native.Store, name string, opts Options) any
)
