package locks

import (
	"tinystore.dev/go/internal/groups"
	"tinystore.dev/go/internal/handles"
	"tinystore.dev/go/internal/native"
)

// The makers package tinystore's Store calls (internal/groups): a group is
// made only from a store, never by a user of this package.
func init() {
	groups.Locks = func(s *native.Store, name string, opts groups.Options) any {
		return &Locks{openGroup(s, name, false, 1, options(opts))}
	}
	groups.Semaphore = func(s *native.Store, name string, limit int, opts groups.Options) any {
		return &Semaphore{openGroup(s, name, true, limit, options(opts))}
	}
	groups.RWLocks = func(s *native.Store, name string, opts groups.Options) any {
		read, write, err := s.RWLocks(name, gather(options(opts)...))
		return &RWLocks{read: group{g: read, err: err, kind: "rwlock", name: name}, write: group{g: write, err: err, kind: "rwlock", name: name}}
	}
	groups.Election = func(s *native.Store, name string, opts groups.Options) any {
		g, err := s.Election(name, gather(options(opts)...))
		return &Election{group: group{g: g, err: err, kind: "election", name: name}, name: name}
	}
	// What package tinystoretest reaches through (internal/handles).
	handles.Held = func(held any) *native.Held {
		if h, ok := held.(Holding); ok && !isNil(h) {
			return h.nativeHeld()
		}
		return nil
	}
	handles.KeyText = keyText
	// What the guards reach through (internal/handles, internal/guardio).
	handles.Observer = func() any {
		if o := currentObserver(); o != nil {
			return o
		}
		return nil
	}
}

// isNil reports whether h is a nil *Lease, *Permit or *Leadership.
func isNil(h Holding) bool {
	switch h := h.(type) {
	case *Lease:
		return h == nil
	case *Permit:
		return h == nil
	case *Leadership:
		return h == nil
	}
	return false
}

func options(opts groups.Options) []Option {
	out := make([]Option, len(opts))
	for i, o := range opts {
		out[i], _ = o.(Option)
	}
	return out
}
