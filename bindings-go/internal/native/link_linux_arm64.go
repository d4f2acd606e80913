//go:build linux && arm64

package native

// The Rust library for linux/arm64, inside the module (cross-built by
// make go-lib-arm64, or natively by make go-lib on an arm64 machine). When it is missing
// (a checkout where it was not built yet) the build stops with a message
// saying what to run, instead of a linker error.

/*
#cgo CFLAGS: -I${SRCDIR}/../../build/linux-arm64
#cgo LDFLAGS: -L${SRCDIR}/../../build/linux-arm64 -ltinystore_capi -lgcc_s -lutil -lrt -lpthread -lm -ldl
#if !__has_include("libtinystore_capi.a")
#error "tinystore: the Rust library build/linux-arm64/libtinystore_capi.a is missing from the module tinystore.dev/go; in a checkout of tinystore run: make go-lib-arm64 (or make go-lib on an arm64 machine)"
#endif
*/
import "C"
