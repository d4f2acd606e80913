//go:build !(linux && (amd64 || arm64))

package native

// No platform but linux/amd64 and linux/arm64 (both packaged) has a library
// to link: say so instead of a linker error.

/*
#error "tinystore: no tinystore library for this platform; tinystore.dev/go is built for linux/amd64 and linux/arm64"
*/
import "C"
