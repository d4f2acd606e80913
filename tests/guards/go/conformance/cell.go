package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// badResources are the resources of bad_resource: empty, 1025 bytes, a
// NUL, and bytes that are not UTF-8.
var badResources = []string{"", strings.Repeat("x", 1025), "a\x00b", "chats/\xed\xa0\x80"}

// backend is one backend's I/O for one scenario.
type backend interface {
	// write makes a guarded write of f (with body, for objects) to
	// resource, in its own transaction or request: nil when accepted.
	write(ctx context.Context, f locks.Fence, body *string, resource string) error
	// recorded is what a reader sees: the fence recorded (nil: none) and,
	// for objects, the body.
	recorded(ctx context.Context) (*locks.Fence, string, error)
	// corrupt edits the register by hand.
	corrupt(ctx context.Context) error
	// unchanged gives a check, to call after a refused write, that the
	// write changed nothing.
	unchanged(ctx context.Context) (func() error, error)
	// driverError tells whether err is the driver's own error of the
	// core's kind (serialization, permission, unavailable) by its type.
	driverError(kind string, err error) bool
	// staleResource is the resource a refusal names.
	staleResource() string
	// steps are the backend's own actions (serialization, race, ...),
	// which judge their outcomes with j.
	steps(j judgeFunc) map[string]stepFunc
	close()
}

// judgeFunc checks outcome, the outcome of a write of f, against want.
type judgeFunc func(want json.RawMessage, outcome error, f locks.Fence) error

// stepFunc does one action of a scenario.
type stepFunc func(ctx context.Context, a args, st step) error

// cell is one scenario on one backend.
type cell struct {
	backend
	resource string
}

// newResource is a resource of the runner's own, unique to the scenario.
func newResource(scenario string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s/r", language, scenario, hex.EncodeToString(b[:]))
}

func open(ctx context.Context, name, scenario string) (*cell, error) {
	resource := newResource(scenario)
	var b backend
	var err error
	switch name {
	case "sqlite":
		b, err = openSQLite(ctx, resource)
	case "postgres":
		b, err = openPostgres(ctx, resource)
	case "s3":
		b, err = openS3(ctx, scenario, resource)
	case "http":
		b, err = openHTTP(ctx, resource)
	case "redis":
		b, err = openRedis(ctx, resource)
	case "mysql":
		b, err = openMySQL(ctx, resource)
	case "dynamodb":
		b, err = openDynamo(ctx, scenario, resource)
	case "gcs":
		b, err = openGCS(ctx, resource)
	case "azure":
		b, err = openAzure(ctx, resource)
	default:
		err = fmt.Errorf("the runner has no backend %q", name)
	}
	if err != nil {
		return nil, err
	}
	return &cell{backend: b, resource: resource}, nil
}

func (c *cell) run(ctx context.Context, action string, a args, st step) error {
	switch action {
	case "write":
		if a.FenceHeader != nil {
			return c.run(ctx, "write_header", a, st)
		}
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		return c.judge(st.expect("expect"), c.write(ctx, f, a.Body, c.resource), f)
	case "recorded":
		return c.checkRecorded(ctx, a)
	case "corrupt":
		return c.corrupt(ctx)
	case "bad_resource":
		return c.badResource(ctx, a)
	}
	if own, ok := c.steps(c.judge)[action]; ok {
		return own(ctx, a, st)
	}
	return fmt.Errorf("the runner does not know the action %q on this backend", action)
}

func (c *cell) checkRecorded(ctx context.Context, a args) error {
	got, body, err := c.recorded(ctx)
	if err != nil {
		return err
	}
	switch {
	case a.Fence == "none" && got != nil:
		return fmt.Errorf("recorded %s, expected none", got)
	case a.Fence == "none":
		return nil
	case got == nil:
		return fmt.Errorf("recorded none, expected %s", a.Fence)
	case got.String() != a.Fence:
		return fmt.Errorf("recorded %s, expected %s", got, a.Fence)
	case a.Body != nil && body != *a.Body:
		return fmt.Errorf("read the body %q, expected %q", body, *a.Body)
	}
	return nil
}

func (c *cell) badResource(ctx context.Context, a args) error {
	f, err := parse(a.Fence)
	if err != nil {
		return err
	}
	for _, bad := range badResources {
		unchanged, err := c.unchanged(ctx)
		if err != nil {
			return err
		}
		outcome := c.write(ctx, f, nil, bad)
		if !isCode(outcome, locks.CodeInvalid) {
			return fmt.Errorf("resource %.20q: %s", bad, describe(outcome))
		}
		if err := unchanged(); err != nil {
			return fmt.Errorf("resource %.20q: %w", bad, err)
		}
	}
	return nil
}

// expect is an expectation of the step: "accepted", {"stale": ...}, ...
func (s step) expect(key string) json.RawMessage { return s[key] }

func parse(decimal string) (locks.Fence, error) {
	f, err := locks.ParseFence(decimal)
	if err != nil {
		return locks.Fence{}, fmt.Errorf("the scenario's fence %q: %w", decimal, err)
	}
	return f, nil
}

func describe(err error) string {
	if err == nil {
		return "accepted"
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func isCode(err error, code locks.Code) bool {
	var e *locks.Error
	return errors.As(err, &e) && e.Code == code && errors.Is(err, code)
}

// wrapsDriver tells whether err wraps an error that is not tinystore's:
// the driver's own, as Go's guards return it.
func wrapsDriver(err error) bool {
	many, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, inner := range many.Unwrap() {
		var e *locks.Error
		if !errors.As(inner, &e) {
			return true
		}
	}
	return false
}

// judge checks outcome, the outcome of a write of f, against want.
func (c *cell) judge(raw json.RawMessage, outcome error, f locks.Fence) error {
	got := describe(outcome)
	var want string
	if err := json.Unmarshal(raw, &want); err != nil {
		var stale struct {
			Stale struct {
				Largest string `json:"largest"`
			} `json:"stale"`
		}
		if json.Unmarshal(raw, &stale) != nil || stale.Stale.Largest == "" {
			return fmt.Errorf("the runner does not know the expectation %s", raw)
		}
		largest, err := parse(stale.Stale.Largest)
		if err != nil {
			return err
		}
		var s *tinystore.StaleError
		if !errors.As(outcome, &s) || !errors.Is(outcome, tinystore.ErrStale) {
			return fmt.Errorf("expected stale, got %s", got)
		}
		if s.Resource != c.staleResource() || s.Fence != f || s.Largest != largest {
			return fmt.Errorf("stale carries (%q, %s, %s), expected (%q, %s, %s)", s.Resource, s.Fence, s.Largest, c.staleResource(), f, largest)
		}
		return nil
	}
	switch want {
	case "accepted":
		if outcome != nil {
			return fmt.Errorf("expected accepted, got %s", got)
		}
	case "corrupt":
		if !isCode(outcome, locks.CodeCorrupt) || !strings.Contains(outcome.Error(), c.staleResource()) {
			return fmt.Errorf("expected corrupt naming %q, got %s", c.staleResource(), got)
		}
	case "invalid":
		if !isCode(outcome, locks.CodeInvalid) {
			return fmt.Errorf("expected invalid, got %s", got)
		}
	case "missing_register":
		if !isCode(outcome, locks.CodeInvalid) || !strings.Contains(outcome.Error(), "ensure") {
			return fmt.Errorf("expected invalid saying to run ensure, got %s", got)
		}
		if !wrapsDriver(outcome) {
			return fmt.Errorf("the driver's error is not inside: %s", got)
		}
	case "not_in_transaction":
		if !isCode(outcome, locks.CodeInvalid) || !strings.Contains(outcome.Error(), "outside a transaction") {
			return fmt.Errorf("expected invalid saying outside a transaction, got %s", got)
		}
	case "serialization", "permission", "unavailable":
		code := map[string]locks.Code{"serialization": locks.CodeIO, "permission": locks.CodeUnauthorized, "unavailable": locks.CodeUnavailable}[want]
		if !isCode(outcome, code) || !wrapsDriver(outcome) || !c.driverError(want, outcome) {
			return fmt.Errorf("expected %s wrapping the driver's %s error, got %s", code, want, got)
		}
		if serialization := guard.IsSerializationFailure(outcome); serialization != (want == "serialization") {
			return fmt.Errorf("guard.IsSerializationFailure is %v: %s", serialization, got)
		}
	default:
		return fmt.Errorf("the runner does not know the expectation %q", want)
	}
	return nil
}

// accepted is the expectation "accepted".
var accepted = json.RawMessage(`"accepted"`)

// fences are a step's fence and its "between" fence (a decimal).
func fences(a args) (f, between locks.Fence, err error) {
	var text string
	if err := json.Unmarshal(a.Between, &text); err != nil {
		return f, between, fmt.Errorf("between %s: %w", a.Between, err)
	}
	if f, err = parse(a.Fence); err != nil {
		return f, between, err
	}
	between, err = parse(text)
	return f, between, err
}
