package locks

import "fmt"

// A Lease is an exclusive hold on one key of a Locks group, with its
// Fence. Release it (Hold does so itself); a lease dropped unreleased is
// released when the garbage collector finds it, as a safety net only.
type Lease struct {
	// Fence is larger than every fence the store gave before this lease.
	Fence Fence
	holding
}

// String names the lease: its group, key and fence.
func (l *Lease) String() string {
	return fmt.Sprintf("lease on %s/%s with fence %s", l.h.Name, l.h.Key, l.Fence)
}
