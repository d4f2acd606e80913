package native

import "testing"

// BenchmarkSQLCheckAccepted is the machine's own cost per accepted check,
// with no database: made (its first step), one row changed, freed. The guard's cost
// per write (tests/guards/go/bench) is this plus its statement.
func BenchmarkSQLCheckAccepted(b *testing.B) {
	for b.Loop() {
		m, step, err := NewSQLCheck("sqlite", "?", "chats/42", 0, 7, true)
		if err != nil || step.Kind != StepExecute {
			b.Fatal(step, err)
		}
		step, err = m.Observe(Observed{Kind: ObservedChanged, Changed: 1})
		if err != nil || step.Verdict.Kind != VerdictAccepted {
			b.Fatal(step, err)
		}
		m.Free()
	}
}
