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

// GuardCheckResource checks a guard's resource name with the core's rule.
func GuardCheckResource(resource string) error {
	var e C.TsError
	ptr, n := text(resource)
	if !C.ts_guard_check_resource(ptr, n, &e) {
		return failure(&e)
	}
	return nil
}

// GuardRefused decides a check that changed no row from the fence recorded
// for the resource (nil: no row): nil when accepted, else the core's error;
// for a stale one, largest is the recorded fence.
func GuardRefused(resource string, epoch, count uint64, recorded *string) (largestEpoch, largestCount uint64, err error) {
	var largest C.TsFence
	var e C.TsError
	rp, rn := text(resource)
	var tp *C.uint8_t
	var tn C.size_t
	if recorded != nil {
		tp, tn = text(*recorded)
	}
	fence := C.TsFence{epoch: C.uint64_t(epoch), count: C.uint64_t(count)}
	if !C.ts_guard_refused(rp, rn, fence, C.bool(recorded != nil), tp, tn, &largest, &e) {
		return uint64(largest.epoch), uint64(largest.count), failure(&e)
	}
	return 0, 0, nil
}

// GuardMissingTable is the core's error for a guard whose register table
// does not exist.
func GuardMissingTable(resource string) error {
	var e C.TsError
	ptr, n := text(resource)
	C.ts_guard_missing_table(ptr, n, &e)
	return failure(&e)
}

// GuardNotInTransaction is the core's error for a guard called outside a
// transaction.
func GuardNotInTransaction(resource string) error {
	var e C.TsError
	ptr, n := text(resource)
	C.ts_guard_not_in_transaction(ptr, n, &e)
	return failure(&e)
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

// Stored is an object as a HEAD read it: its ETag and, when it has one,
// its fence metadata.
type Stored struct {
	ETag  string
	Fence *string
}

// GuardDecidePut decides a guarded put over what a HEAD read (nil: no
// object): replace true means If-Match on the ETag read, false
// If-None-Match: *. For a stale error, largest is the stored fence.
func GuardDecidePut(resource string, epoch, count uint64, stored *Stored, bodyMD5 string) (replace bool, largestEpoch, largestCount uint64, err error) {
	var largest C.TsFence
	var e C.TsError
	var r C.bool
	rp, rn := text(resource)
	mp, mn := text(bodyMD5)
	var ep, fp *C.uint8_t
	var en, fn C.size_t
	hasFence := false
	if stored != nil {
		ep, en = text(stored.ETag)
		if stored.Fence != nil {
			hasFence = true
			fp, fn = text(*stored.Fence)
		}
	}
	fence := C.TsFence{epoch: C.uint64_t(epoch), count: C.uint64_t(count)}
	if !C.ts_guard_decide_put(rp, rn, fence, C.bool(stored != nil), ep, en, C.bool(hasFence), fp, fn, mp, mn, &r, &largest, &e) {
		return false, uint64(largest.epoch), uint64(largest.count), failure(&e)
	}
	return bool(r), 0, 0, nil
}

// GuardTooManyRaces is the core's error for a guarded put overtaken on
// every try.
func GuardTooManyRaces(resource string) error {
	var e C.TsError
	ptr, n := text(resource)
	C.ts_guard_too_many_races(ptr, n, &e)
	return failure(&e)
}

// GuardCheckMetadataKey is the core's check of one key of the caller's
// metadata for a guarded put of object resource: invalid for a key of
// the guard's own.
func GuardCheckMetadataKey(resource, key string) error {
	var e C.TsError
	rptr, rn := text(resource)
	kptr, kn := text(key)
	if !C.ts_guard_check_metadata_key(rptr, rn, kptr, kn, &e) {
		return failure(&e)
	}
	return nil
}

// GuardHeadRefused is the core's unauthorized error of a guarded put
// whose HEAD of object resource was refused with HTTP status.
func GuardHeadRefused(resource string, status int) error {
	var e C.TsError
	ptr, n := text(resource)
	C.ts_guard_head_refused(ptr, n, C.uint16_t(status), &e)
	return failure(&e)
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
