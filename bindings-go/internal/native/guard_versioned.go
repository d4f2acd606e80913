package native

/*
#include "tinystore.h"
*/
import "C"

import "runtime"

// The guard on stores that compare versions (the core's VersionedCheck):
// Google Cloud Storage's generations and Azure Blob Storage's ETags. The
// fence lives in the object's own metadata under the key each step's Text
// names. Its first step is StepReadObject, or StepDone for a bad
// resource: the caller reads the object's version and that metadata key
// (without case) and observes ObservedFound (Version, and Recorded when
// the key is there) or ObservedAbsent. Then StepPutVersioned: put the
// caller's body and metadata with Text set to the fence Params[0], on the
// condition that the object is still the version Params[1] or, when
// Params has one element, that it does not exist; observe
// ObservedWritten, ObservedConditionFailed (412, or Azure's 409
// BlobAlreadyExists) or ObservedFailed.

// The stores a versioned guard runs on, as NewVersioned names them.
const (
	StoreGCS   = "gcs"
	StoreAzure = "azure"
)

// NewVersioned is the guarded put of the fence (epoch, count) to the
// object resource ("BUCKET/NAME", "CONTAINER/NAME") on store (StoreGCS,
// StoreAzure). An unknown store or a resource that is not UTF-8 is an
// invalid error; the first step ends at once, invalid, for a bad
// resource.
func NewVersioned(store, resource string, epoch, count uint64) (*Machine, Step, error) {
	sp, sn := text(store)
	rp, rn := text(resource)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_versioned_new(sp, sn, rp, rn, cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// VersionedCheckMetadata checks the caller's own metadata keys for a
// guarded put to resource on store: the guard's own key, in any case and
// spelling, is an invalid error naming it.
func VersionedCheckMetadata(store, resource string, keys []string) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	lent := textsOf(&pin, keys)
	sp, sn := text(store)
	rp, rn := text(resource)
	var e C.TsError
	if !C.ts_guard_versioned_check_metadata(sp, sn, rp, rn, first(lent), C.size_t(len(lent)), &e) {
		return failure(&e)
	}
	return nil
}

// VersionedAttempted tells a versioned machine (GCS, Azure) the answer
// of one attempt of its put that the client made again: its HTTP status,
// 0 when no answer came (a lost connection, a timeout). Core decides
// whether that attempt may have been written (no answer, a 5xx, a 408):
// if so, a larger fence observed from then on ends in unavailable (the
// outcome unknown), not stale. Call it before observing the put's
// outcome. An invalid error for a machine of another guard.
func (m *Machine) VersionedAttempted(status int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p == nil {
		return Invalid("a guard's machine was used after Free")
	}
	var e C.TsError
	if !C.ts_guard_versioned_attempted(m.p, answer(status), &e) {
		return failure(&e)
	}
	return nil
}

// answer is an attempt's status as the C side takes it: 0 for no answer
// (or none that fits), else the status.
func answer(status int) C.uint16_t {
	if status <= 0 || status > 0xffff {
		return 0
	}
	return C.uint16_t(status)
}
