package locks_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"tinystore.dev/go/locks"
)

// oracle says what ParseFence must do with s, computed independently with
// math/big: accept a non-empty run of ASCII digits below 2^128.
func oracle(s string) (locks.Fence, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return locks.Fence{}, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	if n.BitLen() > 128 {
		return locks.Fence{}, false
	}
	count := new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return locks.Fence{Epoch: new(big.Int).Rsh(n, 64).Uint64(), Count: count}, true
}

// Random texts, mostly digits with leading zeros and lengths around the
// 2^128 boundary, sometimes with a stray byte (a NUL, a sign, a space, a
// non-ASCII digit, invalid UTF-8): ParseFence agrees with the oracle, and
// what it accepts prints back as the same number.
func TestParseFenceAgreesWithBigIntOnRandomTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strays := []string{"\x00", "-", "+", " ", "_", "x", "\u0663", "\xff", "."}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(3); n > 0; n-- {
			b.WriteByte('0')
		}
		for n := r.IntN(42); n > 0; n-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		s := b.String()
		if r.IntN(8) == 0 {
			at := r.IntN(len(s) + 1)
			s = s[:at] + strays[r.IntN(len(strays))] + s[at:]
		}
		want, ok := oracle(s)
		got, err := locks.ParseFence(s)
		switch {
		case ok && (err != nil || got != want):
			t.Fatalf("ParseFence(%q) = %#v, %v; want %#v", s, got, err, want)
		case !ok && !errors.Is(err, locks.ErrInvalid):
			t.Fatalf("ParseFence(%q) = %#v, %v; want ErrInvalid", s, got, err)
		case ok && strings.TrimLeft(s, "0") != strings.TrimLeft(got.String(), "0"):
			t.Fatalf("ParseFence(%q) prints back as %s", s, got)
		}
	}
}
