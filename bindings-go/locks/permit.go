package locks

import "fmt"

// A Permit is one of a semaphore key's places. It has no fence: several
// valid holders at once would refuse each other. Release it (Hold does so
// itself).
type Permit struct {
	holding
}

// String names the permit: its group and key.
func (p *Permit) String() string {
	return fmt.Sprintf("permit on %s/%s", p.h.Name, p.h.Key)
}
