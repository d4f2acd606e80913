package native_test

import (
	"testing"

	"tinystore.dev/go/internal/native"
)

// The core's table reaches Go whole: each code has a number of its own
// that maps back to its name, and a number that is no code is reported as
// unknown, not as another code.
func TestTheCoresCodesCrossByNumber(t *testing.T) {
	all := native.CoreCodes()
	if len(all) == 0 {
		t.Fatal("the library gave no codes")
	}
	seen := map[string]uint32{}
	for _, c := range all {
		code, ok := native.CodeName(c.Number)
		if !ok || code != c.Code {
			t.Errorf("number %d gives %q (known %v); want %q", c.Number, code, ok, c.Code)
		}
		if other, dup := seen[c.Code]; dup {
			t.Errorf("numbers %d and %d are both %s", other, c.Number, c.Code)
		}
		seen[c.Code] = c.Number
		if c.GoName == "" {
			t.Errorf("%s has no Go name", c.Code)
		}
	}
	for _, n := range []uint32{0, uint32(len(all)) + 1, 99} {
		if code, ok := native.CodeName(n); ok {
			t.Errorf("number %d passed as %s", n, code)
		}
	}
}
