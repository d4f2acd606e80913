package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// ObservedKind says what an observation is.
type ObservedKind uint32

// The observations (TS_OBSERVED_*).
const (
	ObservedChanged ObservedKind = C.TS_OBSERVED_CHANGED
	ObservedRow     ObservedKind = C.TS_OBSERVED_ROW
	ObservedNoRow   ObservedKind = C.TS_OBSERVED_NO_ROW
	ObservedListed  ObservedKind = C.TS_OBSERVED_LISTED
	ObservedWritten ObservedKind = C.TS_OBSERVED_WRITTEN
	ObservedDeleted ObservedKind = C.TS_OBSERVED_DELETED
	ObservedGot     ObservedKind = C.TS_OBSERVED_GOT
	ObservedFailed  ObservedKind = C.TS_OBSERVED_FAILED
	ObservedReply   ObservedKind = C.TS_OBSERVED_REPLY
	// A StepTransact's transaction was cancelled: Reasons and Recorded.
	ObservedCancelled ObservedKind = C.TS_OBSERVED_CANCELLED
	// A StepReadObject found the object at Version, with its fence
	// metadata in Recorded (nil: it has none).
	ObservedFound ObservedKind = C.TS_OBSERVED_FOUND
	// A StepReadObject found no object.
	ObservedAbsent ObservedKind = C.TS_OBSERVED_ABSENT
	// A StepPutVersioned's condition failed: another writer came in
	// between.
	ObservedConditionFailed ObservedKind = C.TS_OBSERVED_CONDITION_FAILED
)

// Observed is what the caller observed of a step: the rows an Execute
// changed, the row a Query read (or none), the keys a List found, a Put
// or Delete done, the metadata a Get found, the Reply of an Eval's script
// (each element of its array as text), a DynamoDB transaction written
// (ObservedWritten) or cancelled (ObservedCancelled: each item's reason
// code in Reasons, the register's last, and the register item's fence as
// returned in Recorded, nil when it was not), the register item's fence a
// StepReadItem read (ObservedRow, Row; ObservedNoRow), an object a
// StepReadObject found (ObservedFound: its Version and its fence metadata
// in Recorded, nil when it has none) or did not (ObservedAbsent), a
// StepPutVersioned written or its condition failed
// (ObservedConditionFailed), or the driver's Failure (for a cancellation
// too: the exception).
type Observed struct {
	Kind     ObservedKind
	Changed  uint64
	Row      string
	Keys     []string
	Metadata map[string]string
	Reply    []string
	Reasons  []string
	Recorded *string
	Version  string
	Failure  DriverFailure
}

// DriverFailure is a driver's or an SDK's error as it reports it; a nil
// field is one the driver did not give.
type DriverFailure struct {
	SQLState   *string
	SQLiteCode *int32
	HTTPStatus *uint16
	ErrorCode  *string
	Message    string
}

// DriverClass is the core's class of a driver's failure.
type DriverClass int

// The classes (TsDriverClass).
const (
	ClassMissingTable  DriverClass = C.TS_DRIVER_CLASS_MISSING_TABLE
	ClassSerialization DriverClass = C.TS_DRIVER_CLASS_SERIALIZATION
	ClassPermission    DriverClass = C.TS_DRIVER_CLASS_PERMISSION
	ClassUnavailable   DriverClass = C.TS_DRIVER_CLASS_UNAVAILABLE
	ClassOther         DriverClass = C.TS_DRIVER_CLASS_OTHER
)

// Classify is the core's class of f, and the core's error of it while
// doing (such as "making tinystore_fences"): the class's code and a
// message naming what was done and the driver's text.
func Classify(f DriverFailure, doing string) (DriverClass, *CoreError, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	c := f.c(&pin)
	dp, dn := text(doing)
	var class uint32
	var made, e C.TsError
	if !C.ts_guard_classify(&c, dp, dn, &class, &made, &e) {
		return ClassOther, nil, failure(&e)
	}
	return DriverClass(class), fromC(&made), nil
}

// pinned is a Go string lent to C inside a struct: its bytes are pinned
// until pin.Unpin, as cgo asks of Go pointers held in memory passed to C.
func pinned(pin *runtime.Pinner, s string) C.TsText {
	if len(s) == 0 {
		return C.TsText{}
	}
	p := unsafe.StringData(s)
	pin.Pin(p)
	return C.TsText{ptr: (*C.uint8_t)(unsafe.Pointer(p)), len: C.size_t(len(s))}
}

// textsOf lends texts to C: the array and every string are pinned until
// pin.Unpin.
func textsOf(pin *runtime.Pinner, texts []string) []C.TsText {
	if len(texts) == 0 {
		return nil
	}
	lent := make([]C.TsText, len(texts))
	for i, t := range texts {
		lent[i] = pinned(pin, t)
	}
	pin.Pin(&lent[0])
	return lent
}

func pairsOf(pin *runtime.Pinner, metadata map[string]string) []C.TsPair {
	if len(metadata) == 0 {
		return nil
	}
	pairs := make([]C.TsPair, 0, len(metadata))
	for k, v := range metadata {
		pairs = append(pairs, C.TsPair{key: pinned(pin, k), value: pinned(pin, v)})
	}
	pin.Pin(&pairs[0])
	return pairs
}

func (f DriverFailure) c(pin *runtime.Pinner) C.TsDriverFailure {
	var c C.TsDriverFailure
	if f.SQLState != nil {
		c.has_sqlstate, c.sqlstate = true, pinned(pin, *f.SQLState)
	}
	if f.SQLiteCode != nil {
		c.has_sqlite_code, c.sqlite_code = true, C.int32_t(*f.SQLiteCode)
	}
	if f.HTTPStatus != nil {
		c.has_http_status, c.http_status = true, C.uint16_t(*f.HTTPStatus)
	}
	if f.ErrorCode != nil {
		c.has_error_code, c.error_code = true, pinned(pin, *f.ErrorCode)
	}
	c.message = pinned(pin, f.Message)
	return c
}

func (o Observed) c(pin *runtime.Pinner) C.TsObserved {
	c := C.TsObserved{kind: C.uint32_t(o.Kind), changed: C.uint64_t(o.Changed)}
	c.row = pinned(pin, o.Row)
	if keys := textsOf(pin, o.Keys); len(keys) > 0 {
		c.keys, c.keys_len = &keys[0], C.size_t(len(keys))
	}
	if reply := textsOf(pin, o.Reply); len(reply) > 0 {
		c.reply, c.reply_len = &reply[0], C.size_t(len(reply))
	}
	if reasons := textsOf(pin, o.Reasons); len(reasons) > 0 {
		c.reasons, c.reasons_len = &reasons[0], C.size_t(len(reasons))
	}
	if o.Recorded != nil {
		c.has_recorded, c.recorded = true, pinned(pin, *o.Recorded)
	}
	if pairs := pairsOf(pin, o.Metadata); len(pairs) > 0 {
		c.metadata, c.metadata_len = &pairs[0], C.size_t(len(pairs))
	}
	c.version = pinned(pin, o.Version)
	c.failure = o.Failure.c(pin)
	return c
}
