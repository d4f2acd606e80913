package locks

import (
	"fmt"
	"strconv"
	"strings"

	"tinystore.dev/go/internal/native"
)

// A Fence is a lease's fence: the 128-bit number Epoch<<64 | Count, larger
// than every fence the store gave before. Compare fences with Less; keep
// them as text with fmt.Sprintf("%040s", f) (or %040d), the 40-digit
// zero-padded decimal, which orders as text the way fences order as numbers.
type Fence struct {
	// Epoch is the high 64 bits: the store's epoch when it gave the fence.
	Epoch uint64
	// Count is the low 64 bits: the count within the epoch.
	Count uint64
}

// Less reports whether f is smaller than g.
func (f Fence) Less(g Fence) bool {
	return f.Epoch < g.Epoch || (f.Epoch == g.Epoch && f.Count < g.Count)
}

// String is the fence's decimal value, without padding.
func (f Fence) String() string { return native.FenceDecimal(f.Epoch, f.Count) }

// ParseFence parses a decimal fence: ASCII digits only, leading zeros
// allowed, at most 2^128-1; anything else (a sign, a space, '_', "0x",
// other scripts' digits, the empty string) is an ErrInvalid error.
func ParseFence(s string) (Fence, error) {
	epoch, count, err := native.ParseFence(s)
	if err != nil {
		return Fence{}, err
	}
	return Fence{Epoch: epoch, Count: count}, nil
}

// MarshalText gives the decimal, as on the wire.
func (f Fence) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText parses a decimal with ParseFence.
func (f *Fence) UnmarshalText(text []byte) error {
	parsed, err := ParseFence(string(text))
	if err != nil {
		return err
	}
	*f = parsed
	return nil
}

// Format prints the decimal for the verbs s, d, v and q, with fmt's width
// and flags: '0' pads with zeros on the left (so %040s and %040d give the
// 40-digit text form), '-' pads with spaces on the right. %#v prints the
// struct; a precision with %d sets the least number of digits.
func (f Fence) Format(s fmt.State, verb rune) {
	digits := f.String()
	switch verb {
	case 'v':
		if s.Flag('#') {
			fmt.Fprintf(s, "locks.Fence{Epoch:%d, Count:%d}", f.Epoch, f.Count)
			return
		}
	case 's', 'd':
	case 'q':
		digits = strconv.Quote(digits)
	default:
		fmt.Fprintf(s, "%%!%c(locks.Fence=%s)", verb, digits)
		return
	}
	if p, ok := s.Precision(); ok && verb == 'd' && p > len(digits) {
		digits = strings.Repeat("0", p-len(digits)) + digits
	}
	width, _ := s.Width()
	pad := width - len(digits)
	switch {
	case pad <= 0:
	case s.Flag('-'):
		digits += strings.Repeat(" ", pad)
	case s.Flag('0') && verb != 'q':
		digits = strings.Repeat("0", pad) + digits
	default:
		digits = strings.Repeat(" ", pad) + digits
	}
	_, _ = fmt.Fprint(s, digits)
}
