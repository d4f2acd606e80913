package tinystore_test

// Every case of vectors/behaviour.json against the real library: what Hold
// gives for each way its fn and its lease can end (on an embedded store and
// over a real `tinystore serve`, killed or stopped), and which error each
// bad input gets. A case this runner cannot express fails, unless the file
// marks it not applicable to Go.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

type holdCase struct {
	ID     string `json:"id"`
	Store  string `json:"store"`
	During string `json:"during"`
	Body   string `json:"body"`
	TTLms  *int64 `json:"ttl_ms"`
	Renew  *bool  `json:"renew"`
	Expect string `json:"expect"`
}

type badCase struct {
	ID            string            `json:"id"`
	Group         string            `json:"group"`
	Name          json.RawMessage   `json:"name"`
	Key           json.RawMessage   `json:"key"`
	Limit         *int              `json:"limit"`
	TTLms         *int64            `json:"ttl_ms"`
	Waitms        json.RawMessage   `json:"wait_ms"`
	HeldFirst     *int              `json:"held_first"`
	Stores        []string          `json:"stores"`
	Expect        string            `json:"expect"`
	MessageHas    string            `json:"message_has"`
	NotApplicable map[string]string `json:"not_applicable"`
}

type behaviourVectors struct {
	Hold     struct{ Cases []holdCase }     `json:"hold"`
	HoldEnd  struct{ Cases []holdCase }     `json:"hold_end"`
	BadInput struct{ Cases []badCase }      `json:"bad_input"`
	MoreWays struct{ Cases []moreWaysCase } `json:"more_ways"`
}

func loadBehaviour(t *testing.T) behaviourVectors {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/behaviour.json")
	if err != nil {
		t.Fatal(err)
	}
	var v behaviourVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Hold.Cases) == 0 || len(v.HoldEnd.Cases) == 0 || len(v.BadInput.Cases) == 0 {
		t.Fatal("vectors/behaviour.json has no cases")
	}
	return v
}

var errOwn = errors.New("the body's own error")

const bodyValue = "the body's value"

// storeOf gives a store of the kind a case names, with the server behind it
// if served.
func storeOf(t *testing.T, kind string) (*tinystore.Store, *server) {
	t.Helper()
	switch kind {
	case "embedded":
		return openStore(t), nil
	case "served":
		s := serve(t)
		store, err := tinystore.Connect("unix:" + filepath.Join(s.dir, "tinystore.sock"))
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { _ = store.Close() })
		return store, &s
	}
	t.Fatalf("unknown store %q", kind)
	return nil, nil
}

// resultOf names what Hold gave: "value", "body_error" or an error code.
func resultOf(err error, value string) string {
	var e *locks.Error
	switch {
	case err == nil && value == bodyValue:
		return "value"
	case errors.Is(err, errOwn):
		return "body_error"
	case errors.As(err, &e):
		return string(e.Code)
	}
	return "unexpected: " + value + " " + errString(err)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestBehaviourHold(t *testing.T) {
	runHoldCases(t, loadBehaviour(t).Hold.Cases)
}

// A fn that returns only the cancellation of its ctx that the loss caused
// is answered as the loss.
func TestBehaviourHoldEnd(t *testing.T) {
	runHoldCases(t, loadBehaviour(t).HoldEnd.Cases)
}

// runHoldCases runs each hold case on a real store, with a real loss.
func runHoldCases(t *testing.T, cases []holdCase) {
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			store, srv := storeOf(t, c.Store)
			var opts []locks.Option
			if c.TTLms != nil {
				opts = append(opts, locks.TTL(time.Duration(*c.TTLms)*time.Millisecond))
			}
			if c.Renew != nil && !*c.Renew {
				opts = append(opts, locks.NoRenew())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var value string
			err := store.Locks("behaviour", opts...).Hold(ctx, "k", func(ctx context.Context, lease *locks.Lease) error {
				switch c.During {
				case "nothing":
				case "released":
					if err := lease.Release(ctx); err != nil {
						t.Fatalf("release: %v", err)
					}
				case "runs_out":
					<-ctx.Done()
				case "store_closes":
					if err := store.Close(); err != nil {
						t.Fatalf("close: %v", err)
					}
					<-ctx.Done()
				case "server_killed", "server_stopped":
					if srv == nil {
						t.Fatalf("%s needs a served store", c.During)
					}
					sig := syscall.SIGTERM
					if c.During == "server_killed" {
						sig = syscall.SIGKILL
					}
					if err := srv.process.Signal(sig); err != nil {
						t.Fatal(err)
					}
					<-ctx.Done()
				default:
					t.Fatalf("unknown event %q", c.During)
				}
				switch c.Body {
				case "value":
					value = bodyValue
					return nil
				case "error":
					return errOwn
				case "cancelled":
					<-ctx.Done()
					return ctx.Err()
				}
				t.Fatalf("unknown body %q", c.Body)
				return nil
			})
			if ctx.Err() != nil {
				t.Fatalf("the hold did not end in time: %v", err)
			}
			if got := resultOf(err, value); got != c.Expect {
				t.Errorf("got %s (%v), want %s", got, err, c.Expect)
			}
		})
	}
}

// text gives a name or key: a string, or {"repeat": s, "times": n}.
func text(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var r struct {
		Repeat *string
		Times  int
	}
	if json.Unmarshal(raw, &r) == nil && r.Repeat != nil {
		return strings.Repeat(*r.Repeat, r.Times)
	}
	t.Fatalf("no text for %s", raw)
	return ""
}

func keyOf(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var f struct{ Float *float64 }
	if json.Unmarshal(raw, &f) == nil && f.Float != nil {
		return *f.Float
	}
	return text(t, raw)
}

func badOptions(t *testing.T, c badCase) []locks.Option {
	t.Helper()
	var opts []locks.Option
	if c.TTLms != nil {
		opts = append(opts, locks.TTL(time.Duration(*c.TTLms)*time.Millisecond))
	}
	if len(c.Waitms) > 0 && string(c.Waitms) != "null" {
		var ms int64
		if err := json.Unmarshal(c.Waitms, &ms); err != nil {
			t.Fatalf("Go cannot give wait_ms %s as a time.Duration", c.Waitms)
		}
		opts = append(opts, locks.Wait(time.Duration(ms)*time.Millisecond))
	}
	return opts
}

func TestBehaviourBadInput(t *testing.T) {
	for _, c := range loadBehaviour(t).BadInput.Cases {
		for language, reason := range c.NotApplicable {
			if reason == "" || !strings.Contains("rust python typescript go", language) {
				t.Errorf("%s: not_applicable %q needs a known language and a reason", c.ID, language)
			}
		}
		for _, kind := range c.Stores {
			t.Run(c.ID+"@"+kind, func(t *testing.T) {
				if reason, ok := c.NotApplicable["go"]; ok {
					t.Skipf("not applicable to Go: %s", reason)
				}
				store, _ := storeOf(t, kind)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				name, key, opts := text(t, c.Name), keyOf(t, c.Key), badOptions(t, c)
				ran := false
				var err error
				if c.HeldFirst != nil {
					_, err = store.Semaphore(name, *c.HeldFirst).Acquire(ctx, key)
				}
				if err == nil {
					switch c.Group {
					case "locks":
						err = store.Locks(name).Hold(ctx, key, func(context.Context, *locks.Lease) error {
							ran = true
							return nil
						}, opts...)
					case "semaphore":
						if c.Limit == nil {
							t.Fatal("a semaphore case needs a limit")
						}
						err = store.Semaphore(name, *c.Limit).Hold(ctx, key, func(context.Context, *locks.Permit) error {
							ran = true
							return nil
						}, opts...)
					default:
						t.Fatalf("unknown group %q", c.Group)
					}
				}
				if ran {
					t.Fatal("the body ran")
				}
				var e *locks.Error
				if !errors.As(err, &e) {
					t.Fatalf("want a tinystore error, got %v", err)
				}
				if string(e.Code) != c.Expect || !strings.Contains(e.Message, c.MessageHas) {
					t.Errorf("want %s naming %q, got %v", c.Expect, c.MessageHas, err)
				}
			})
		}
	}
}
