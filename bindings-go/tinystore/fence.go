package tinystore

import "tinystore.dev/go/locks"

// Fence is a lease's fence; see locks.Fence. The guard (package
// tinystore.dev/go/guard) takes it.
type Fence = locks.Fence
