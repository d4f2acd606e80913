package native

/*
#include "tinystore.h"
*/
import "C"

import "unsafe"

// ParseFence parses a decimal fence with the core's parser.
func ParseFence(s string) (epoch, count uint64, err error) {
	var f C.TsFence
	var e C.TsError
	ptr, n := text(s)
	if !C.ts_fence_parse(ptr, n, &f, &e) {
		return 0, 0, failure(&e)
	}
	return uint64(f.epoch), uint64(f.count), nil
}

// FenceDecimal is the fence's decimal, as the core prints it.
func FenceDecimal(epoch, count uint64) string {
	var buf [40]byte
	n := C.ts_fence_decimal(C.TsFence{epoch: C.uint64_t(epoch), count: C.uint64_t(count)},
		(*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	return string(buf[:n])
}
