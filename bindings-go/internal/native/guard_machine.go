package native

/*
#include <stdlib.h>
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// A Machine is one of the core's guard machines, which do no I/O: the
// SQL check-and-record, a guarded object write, a guarded object read, a
// guarded Redis write (guard_redis.go), a guarded DynamoDB transaction
// (guard_dynamo.go), a guarded put on GCS or Azure (guard_versioned.go).
// Making one gives its first step; the caller does what it says on its
// own driver or client and hands what it observed to Observe, until the
// step is StepDone, whose Verdict is the outcome. Free it when done.
type Machine struct {
	mu sync.Mutex
	p  *C.TsGuardMachine
}

// StepKind is what a step asks for.
type StepKind int

// The steps (TsStepKind).
const (
	StepDone    StepKind = C.TS_STEP_KIND_DONE
	StepExecute StepKind = C.TS_STEP_KIND_EXECUTE
	StepQuery   StepKind = C.TS_STEP_KIND_QUERY
	StepList    StepKind = C.TS_STEP_KIND_LIST
	StepPut     StepKind = C.TS_STEP_KIND_PUT
	StepDelete  StepKind = C.TS_STEP_KIND_DELETE
	StepGet     StepKind = C.TS_STEP_KIND_GET
	StepEval    StepKind = C.TS_STEP_KIND_EVAL
	// DynamoDB: TransactWriteItems with the caller's items and, last, the
	// register item's put in the table Text, its key Keys[0], its fence
	// Params[0] and the condition's :digits Params[1].
	StepTransact StepKind = C.TS_STEP_KIND_TRANSACT
	// DynamoDB: a consistent GetItem of the register item of the table
	// Text whose key is Keys[0].
	StepReadItem StepKind = C.TS_STEP_KIND_READ_ITEM
	// GCS, Azure: read the object's version and its metadata key Text.
	StepReadObject StepKind = C.TS_STEP_KIND_READ_OBJECT
	// GCS, Azure: put the caller's body and metadata with the key Text set
	// to the fence Params[0], on the condition that the object is still the
	// version Params[1], or (one Param) that it does not exist.
	StepPutVersioned StepKind = C.TS_STEP_KIND_PUT_VERSIONED
)

// VerdictKind is how a machine ended.
type VerdictKind int

// The verdicts (TsVerdictKind).
const (
	VerdictPending  VerdictKind = C.TS_VERDICT_KIND_PENDING
	VerdictAccepted VerdictKind = C.TS_VERDICT_KIND_ACCEPTED
	VerdictRefused  VerdictKind = C.TS_VERDICT_KIND_REFUSED
	VerdictDriver   VerdictKind = C.TS_VERDICT_KIND_DRIVER
)

// A Step is what to do next: run Text (a statement) with Params; list
// the prefix Text; put, delete or get the key Text (a put with
// Metadata); run the script Text with KEYS Keys and ARGV Params; run a
// DynamoDB transaction or read of the register table Text (StepTransact,
// StepReadItem); read or put an object whose fence is the metadata key
// Text (StepReadObject, StepPutVersioned); or, for StepDone, the Verdict.
type Step struct {
	Kind     StepKind
	Text     string
	Params   []string
	Keys     []string
	Metadata map[string]string
	Verdict  Verdict
}

// A Verdict is how a machine ended: accepted, refused by the guard (Err:
// the tinystore error; Stale set for a stale one), or failed in the
// driver (Err: the code core classified the driver's error as).
type Verdict struct {
	Kind  VerdictKind
	Err   *CoreError
	Stale *Stale
}

// Stale is what a stale refusal is about: the resource, the refused
// write's fence and the largest recorded fence.
type Stale struct {
	Resource                   string
	FenceEpoch, FenceCount     uint64
	LargestEpoch, LargestCount uint64
}

// NewSQLCheck is the check-and-record of the fence (epoch, count) for
// resource in dialect with placeholders, and its first step;
// inTransaction says whether the caller has a transaction open. A
// resource that is not UTF-8, or an unknown dialect, is an invalid error.
func NewSQLCheck(dialect, placeholders, resource string, epoch, count uint64, inTransaction bool) (*Machine, Step, error) {
	var p *C.TsGuardMachine
	var first C.TsGuardStep
	var e C.TsError
	dp, dn := text(dialect)
	pp, pn := text(placeholders)
	rp, rn := text(resource)
	if !C.ts_guard_sql_check_new(dp, dn, pp, pn, rp, rn, cFence(epoch, count), C.bool(inTransaction), &p, &first, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&first), nil
}

// NewObjectPut is a guarded put of the fence to bucket/key with the
// caller's own metadata beside the fence, and its first step.
func NewObjectPut(bucket, key string, epoch, count uint64, metadata map[string]string) (*Machine, Step, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	pairs := pairsOf(&pin, metadata)
	bp, bn := text(bucket)
	kp, kn := text(key)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_object_put_new(bp, bn, kp, kn, cFence(epoch, count), first(pairs), C.size_t(len(pairs)), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// NewObjectDelete is a guarded delete of bucket/key with the fence (the
// put of an empty tombstone that keeps it), and its first step.
func NewObjectDelete(bucket, key string, epoch, count uint64) (*Machine, Step, error) {
	bp, bn := text(bucket)
	kp, kn := text(key)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_object_delete_new(bp, bn, kp, kn, cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// NewObjectRead is a guarded read of bucket/key (the largest fence's
// object), and its first step.
func NewObjectRead(bucket, key string) (*Machine, Step, error) {
	bp, bn := text(bucket)
	kp, kn := text(key)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_object_read_new(bp, bn, kp, kn, &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

func cFence(epoch, count uint64) C.TsFence {
	return C.TsFence{epoch: C.uint64_t(epoch), count: C.uint64_t(count)}
}

// Observe hands the machine what was observed of the step it last gave,
// and gives the next.
func (m *Machine) Observe(o Observed) (Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p == nil {
		return Step{}, Invalid("a guard's machine was used after Free")
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	c := o.c(&pin)
	var s C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_observe(m.p, &c, &s, &e) {
		return Step{}, failure(&e)
	}
	return stepOf(&s), nil
}

// Found is, after a read's accepted verdict, whether there is an object
// (false: none, or a tombstone) and the fence it was written with.
func (m *Machine) Found() (present bool, epoch, count uint64, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p == nil {
		return false, 0, 0, Invalid("a guard's machine was used after Free")
	}
	var p C.bool
	var f C.TsFence
	var e C.TsError
	if !C.ts_guard_read_found(m.p, &p, &f, &e) {
		return false, 0, 0, failure(&e)
	}
	return bool(p), uint64(f.epoch), uint64(f.count), nil
}

// Free frees the machine; it may be called again.
func (m *Machine) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	C.ts_guard_free(m.p)
	m.p = nil
}

// goText copies a text the machine lent.
func goText(t C.TsText) string {
	if t.ptr == nil || t.len == 0 {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(t.ptr)), C.int(t.len))
}

// stepOf copies a step the machine lent into Go: its texts are the
// machine's until its next call.
func stepOf(s *C.TsGuardStep) Step {
	step := Step{Kind: StepKind(s.kind), Text: goText(s.text)}
	if s.params_len > 0 {
		for _, p := range unsafe.Slice(s.params, int(s.params_len)) {
			step.Params = append(step.Params, goText(p))
		}
	}
	if s.keys_len > 0 {
		for _, k := range unsafe.Slice(s.keys, int(s.keys_len)) {
			step.Keys = append(step.Keys, goText(k))
		}
	}
	if s.metadata_len > 0 {
		step.Metadata = map[string]string{}
		for _, p := range unsafe.Slice(s.metadata, int(s.metadata_len)) {
			step.Metadata[goText(p.key)] = goText(p.value)
		}
	}
	v := &s.verdict
	step.Verdict.Kind = VerdictKind(v.kind)
	if v.kind == C.TS_VERDICT_KIND_REFUSED || v.kind == C.TS_VERDICT_KIND_DRIVER {
		step.Verdict.Err = coreErrorOf(C.TsCode(v.code), goText(v.message))
	}
	if bool(v.stale) {
		step.Verdict.Stale = &Stale{
			Resource:   goText(v.stale_resource),
			FenceEpoch: uint64(v.stale_fence.epoch), FenceCount: uint64(v.stale_fence.count),
			LargestEpoch: uint64(v.stale_largest.epoch), LargestCount: uint64(v.stale_largest.count),
		}
	}
	return step
}
