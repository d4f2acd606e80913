package native_test

import (
	"testing"

	"tinystore.dev/go/internal/native"
)

// Every code the header defines is known, each as a code of its own; a
// number the module does not know is reported as unknown, not as another.
func TestEveryCCodeHasItsOwnCode(t *testing.T) {
	seen := map[native.Code]int{}
	for _, n := range native.CodeNumbers {
		code, ok := native.CodeOfNumber(n)
		if !ok {
			t.Errorf("code number %d is not known", n)
		}
		if other, dup := seen[code]; dup {
			t.Errorf("numbers %d and %d are both %s", other, n, code)
		}
		seen[code] = n
	}
	if len(seen) != 12 {
		t.Errorf("%d codes; DESIGN.md has 12", len(seen))
	}
	if code, ok := native.CodeOfNumber(99); ok {
		t.Errorf("number 99 passed as %s", code)
	}
}
