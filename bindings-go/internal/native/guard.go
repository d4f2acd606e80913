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
