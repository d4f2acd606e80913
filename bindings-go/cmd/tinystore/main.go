// Command tinystore is the tinystore command line (serve, hold, status,
// backup, restore, demo), the same one the Rust binary runs, linked into
// this program from the module's library: no separate binary, no Rust
// toolchain.
//
//	go run tinystore.dev/go/cmd/tinystore serve ./data
//	go run tinystore.dev/go/cmd/tinystore --help
package main

import (
	"os"

	"tinystore.dev/go/internal/native"
)

func main() {
	os.Exit(native.CLIMain(os.Args))
}
