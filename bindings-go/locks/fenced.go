package locks

// Fenced is what a guarded write is made under: a Fence alone, or the
// *Lease itself. Given the lease, a guard (packages guard, redisguard,
// s3guard and the others) takes its fence and, when it refuses the write
// as stale, tells the lease's store (Lease.ReportRefused), which counts
// the late writes refused per group; telling never blocks nor fails.
// Only Fence and *Lease implement it.
type Fenced interface {
	// WriteFence is the fence the write carries.
	WriteFence() Fence
	fenced()
}

// WriteFence is f itself.
func (f Fence) WriteFence() Fence { return f }

func (Fence) fenced() {}

// WriteFence is the lease's Fence.
func (l *Lease) WriteFence() Fence { return l.Fence }

func (*Lease) fenced() {}

// ReportRefused tells the lease's store that a guard refused a write
// under it to resource as stale, for the store to count per group (its
// status and metrics show the count). It never blocks nor fails: a served
// store is sent a message nobody answers, dropped when it cannot go at
// once; etcd counts none. The guards call it when given the lease. It
// tells after the lease ran out or was lost, and after Release once a
// guard was given the lease before it: a guard may refuse a late write
// made under it then (what telling needs is kept when a guard is first
// given the lease; a lease no guard was given before its release tells
// nothing, its handle freed with it).
func (l *Lease) ReportRefused(resource string) { l.h.ReportRefused(resource) }
