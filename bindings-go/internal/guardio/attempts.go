package guardio

import "sync"

// Attempts keeps the answers of one guarded write's attempts as the
// client's hooks see them (from whichever goroutine the client runs them
// on): each one's HTTP status, 0 when no answer came. Core decides which
// of them may have been written; Tell hands them to it.
type Attempts struct {
	mu       sync.Mutex
	statuses []int
}

// Add notes one attempt's status (0: no answer came).
func (a *Attempts) Add(status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.statuses = append(a.statuses, status)
}

// Tell gives each attempt noted so far to tell (a machine's
// VersionedAttempted or DynamoAttempted), in order, stopping at its first
// error.
func (a *Attempts) Tell(tell func(status int) error) error {
	a.mu.Lock()
	statuses := a.statuses
	a.statuses = nil
	a.mu.Unlock()
	for _, status := range statuses {
		if err := tell(status); err != nil {
			return err
		}
	}
	return nil
}
