package native

/*
#include "tinystore.h"
*/
import "C"

// GuardStatements are the SQL guard's statements from the core for a
// dialect ("sqlite", "postgres") and placeholder style ("?", "$1", "%s").
func GuardStatements(dialect, placeholders string) (migration, check, read string, err error) {
	var s C.TsGuardStatements
	var e C.TsError
	dp, dn := text(dialect)
	pp, pn := text(placeholders)
	if !C.ts_guard_statements(dp, dn, pp, pn, &s, &e) {
		return "", "", "", failure(&e)
	}
	defer C.ts_guard_statements_clear(&s)
	return C.GoString(s.migration), C.GoString(s.check), C.GoString(s.read), nil
}

// GuardNames are the object-storage and HTTP guards' names from the core.
type GuardNames struct {
	MetadataKey, TombstoneKey, FenceHeader, LargestHeader string
	MaxTries                                              int
	Conflict, BadRequest                                  int
}

// GuardNamesOf reads the core's names once.
func GuardNamesOf() GuardNames {
	var n C.TsGuardNames
	C.ts_guard_names(&n)
	return GuardNames{
		MetadataKey:   C.GoString(n.metadata_key),
		TombstoneKey:  C.GoString(n.tombstone_key),
		FenceHeader:   C.GoString(n.fence_header),
		LargestHeader: C.GoString(n.largest_header),
		MaxTries:      int(n.max_tries),
		Conflict:      int(n.conflict),
		BadRequest:    int(n.bad_request),
	}
}

// FenceHeaderParse reads a Tinystore-Fence header (nil: none): present
// false when there is none.
func FenceHeaderParse(value *string) (present bool, epoch, count uint64, err error) {
	var e C.TsError
	var p C.bool
	var f C.TsFence
	var vp *C.uint8_t
	var vn C.size_t
	if value != nil {
		vp, vn = text(*value)
	}
	if !C.ts_fence_header_parse(C.bool(value != nil), vp, vn, &p, &f, &e) {
		return false, 0, 0, failure(&e)
	}
	return bool(p), uint64(f.epoch), uint64(f.count), nil
}

// HTTPReadAnswer is the core's reading of the answer to a request that
// carried the fence (epoch, count), its write to resource: its status and
// its Tinystore-Fence-Largest header (nil: none; a header sent twice
// joined by commas). All zero when accepted; stale true for a refusal by
// a guard in the service, with the core's message and the largest
// recorded fence; otherwise err, the io error saying what the answer was.
func HTTPReadAnswer(status int, largest *string, resource string, epoch, count uint64) (stale bool, message string, largestEpoch, largestCount uint64, err error) {
	var e C.TsError
	var s C.bool
	var l C.TsFence
	var lp *C.uint8_t
	var ln C.size_t
	if largest != nil {
		lp, ln = text(*largest)
	}
	rp, rn := text(resource)
	code := C.uint16_t(min(max(status, 0), 0xffff))
	if C.ts_http_read_answer(code, C.bool(largest != nil), lp, ln, rp, rn, cFence(epoch, count), &s, &l, &e) {
		return false, "", 0, 0, nil
	}
	if bool(s) {
		return true, fromC(&e).Message, uint64(l.epoch), uint64(l.count), nil
	}
	return false, "", 0, 0, failure(&e)
}
