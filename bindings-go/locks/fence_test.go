package locks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"tinystore.dev/go/locks"
)

// vectors is vectors/fences.json at the repository's root (a copy of
// shared/vectors/fences.json).
type vectors struct {
	Cases []struct {
		Value, Text, Epoch, Count, Note string
	}
	Ordered [][2]string
	Invalid []string
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/fences.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 10 || len(v.Ordered) < 10 || len(v.Invalid) < 10 {
		t.Fatalf("the vectors look truncated: %d cases, %d pairs, %d invalid", len(v.Cases), len(v.Ordered), len(v.Invalid))
	}
	return v
}

func parse(t *testing.T, s string) locks.Fence {
	t.Helper()
	f, err := locks.ParseFence(s)
	if err != nil {
		t.Fatalf("ParseFence(%q): %v", s, err)
	}
	return f
}

func u64(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Each case both ways: its value and its text parse to its epoch and
// count, and the fence prints as its value and (%040s, %040d) as its text.
func TestEachCaseConvertsBothWays(t *testing.T) {
	for _, c := range loadVectors(t).Cases {
		want := locks.Fence{Epoch: u64(t, c.Epoch), Count: u64(t, c.Count)}
		if got := parse(t, c.Value); got != want {
			t.Errorf("%s (%s): parsed %#v; want %#v", c.Value, c.Note, got, want)
		}
		if got := parse(t, c.Text); got != want {
			t.Errorf("%s: parsed %#v; want %#v", c.Text, got, want)
		}
		for format, wantText := range map[string]string{"%s": c.Value, "%d": c.Value, "%v": c.Value, "%040s": c.Text, "%040d": c.Text} {
			if got := fmt.Sprintf(format, want); got != wantText {
				t.Errorf("Sprintf(%q, %#v) = %q; want %q", format, want, got, wantText)
			}
		}
		if want.String() != c.Value {
			t.Errorf("String() = %q; want %q", want.String(), c.Value)
		}
		text, err := want.MarshalText()
		if err != nil || string(text) != c.Value {
			t.Errorf("MarshalText() = %q, %v; want %q", text, err, c.Value)
		}
		var back locks.Fence
		if err := back.UnmarshalText([]byte(c.Text)); err != nil || back != want {
			t.Errorf("UnmarshalText(%q) = %#v, %v", c.Text, back, err)
		}
		js, err := json.Marshal(map[string]locks.Fence{"fence": want})
		if err != nil || string(js) != `{"fence":"`+c.Value+`"}` {
			t.Errorf("json: %s, %v", js, err)
		}
	}
}

// Each ordered pair is less-than as fences and as texts, never the other way.
func TestEachOrderedPairIsLessAsFencesAndAsTexts(t *testing.T) {
	for _, pair := range loadVectors(t).Ordered {
		a, b := parse(t, pair[0]), parse(t, pair[1])
		if !a.Less(b) || b.Less(a) || a.Less(a) {
			t.Errorf("Less: %s < %s does not hold one way only", pair[0], pair[1])
		}
		if ta, tb := fmt.Sprintf("%040s", a), fmt.Sprintf("%040d", b); ta >= tb {
			t.Errorf("texts %s and %s are not in order", ta, tb)
		}
	}
}

// Each invalid string is refused with ErrInvalid, by the core's parser,
// with a message that names the fence text.
func TestEachInvalidStringIsRefused(t *testing.T) {
	for _, s := range loadVectors(t).Invalid {
		f, err := locks.ParseFence(s)
		if !errors.Is(err, locks.ErrInvalid) {
			t.Errorf("ParseFence(%q) = %#v, %v; want ErrInvalid", s, f, err)
			continue
		}
		if !strings.Contains(err.Error(), "fence") {
			t.Errorf("ParseFence(%q): the message %q does not name a fence", s, err)
		}
		var into locks.Fence
		if err := json.Unmarshal([]byte(strconv.Quote(s)), &into); err == nil {
			t.Errorf("json accepted %q as a fence", s)
		}
	}
}

func TestFormatFlagsAndVerbs(t *testing.T) {
	f := locks.Fence{Count: 42}
	for format, want := range map[string]string{
		"%6s|":   "    42|",
		"%-6d|":  "42    |",
		"%06d":   "000042",
		"%.5d":   "00042",
		"%q":     `"42"`,
		"%#v":    "locks.Fence{Epoch:0, Count:42}",
		"%x":     "%!x(locks.Fence=42)",
		"%+v":    "42",
		"%s and": "42 and",
	} {
		if got := fmt.Sprintf(format, f); got != want {
			t.Errorf("Sprintf(%q) = %q; want %q", format, got, want)
		}
	}
}
