// Package guardio drives the core's guard machines (internal/native's
// Machine) for the Go guards, tinystore.dev/go/guard (database/sql) and
// tinystore.dev/go/s3guard (aws-sdk-go-v2): Run does each step's I/O
// through the guard's own function, Describe turns a driver's error into
// what the core classifies, and the verdict becomes Go's error here, once
// for every guard. It decides nothing: the sequence, the rule, every
// retry and every message are the core's.
//
// s3guard is a module of its own but its import path is under
// tinystore.dev/go, so Go lets it import this internal package.
package guardio

import (
	"tinystore.dev/go/internal/native"
)

// Do performs one step on the caller's driver or client and reports what
// it observed; for a failed step, the driver's own error too (nil
// otherwise), which becomes the cause of the guard's error.
type Do func(step native.Step) (native.Observed, error)

// Run drives m from its first step, given when m was made, to its
// verdict, doing each step with do. It gives the verdict's error (nil
// when accepted); the caller frees m.
func Run(m *native.Machine, step native.Step, do Do) error {
	var err error
	var cause error
	for err == nil && step.Kind != native.StepDone {
		var observed native.Observed
		observed, cause = do(step)
		step, err = m.Observe(observed)
	}
	if err != nil {
		return err
	}
	return Outcome(step.Verdict, cause)
}

// Failed is the observation of a step that failed with the driver's err.
func Failed(err error) (native.Observed, error) {
	return native.Observed{Kind: native.ObservedFailed, Failure: Describe(err)}, err
}
