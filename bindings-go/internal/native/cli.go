package native

/*
#include <stdlib.h>
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// CLIMain runs the tinystore command line on args (args[0] is the
// program's name) and returns its exit status. It is a whole program's
// main: it sets the process's signal dispositions as the tinystore binary
// starts with them.
func CLIMain(args []string) int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	argv := make([]*C.char, len(args)+1)
	for i, arg := range args {
		argv[i] = C.CString(arg)
	}
	defer func() {
		for _, arg := range argv[:len(args)] {
			C.free(unsafe.Pointer(arg))
		}
	}()
	// argv is Go memory holding C pointers: allowed for the call, not kept.
	return int(C.ts_cli_main(C.int(len(args)), &argv[0]))
}
