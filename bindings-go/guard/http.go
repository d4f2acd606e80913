package guard

// Fences over HTTP (the core's guard::http): a request carries its fence
// in the header Tinystore-Fence, as a decimal. A client attaches it with
// Transport or SetFence; a service reads it with Middleware (a malformed
// header is answered 400 with the parser's message) and FenceFrom, checks
// it with a guard inside the handler's own transaction, and answers a
// refusal with WriteError: 409 Conflict, the largest recorded fence in
// Tinystore-Fence-Largest.
//
// The check belongs in the handler's transaction, not in the middleware:
// a request whose fence passed a check made before the handler ran may
// pause (a GC, a slow disk, a stopped process) while a later holder
// writes; only a comparison inside the write's own atomic step keeps it
// out.

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

var names = native.GuardNamesOf()

var (
	// FenceHeader is the request header that carries a fence, as a
	// decimal: "Tinystore-Fence".
	FenceHeader = names.FenceHeader
	// LargestHeader is the header of a 409 Conflict that carries the
	// largest recorded fence: "Tinystore-Fence-Largest".
	LargestHeader = names.LargestHeader
)

// SetFence sets the request's Tinystore-Fence header to fence.
func SetFence(req *http.Request, fence locks.Fence) {
	req.Header.Set(FenceHeader, fence.String())
}

// Transport is an http.RoundTripper that sends every request with the
// Tinystore-Fence header of Fence, over Base (http.DefaultTransport when
// nil):
//
//	client := &http.Client{Transport: &guard.Transport{Fence: lease}}
//
// Fence is the lease's Fence, or the *locks.Lease itself. Either way each
// request is a guard's check seen from the client (backend "http", the
// resource the URL's host and path): the Observer's GuardCheck (a
// tinystoreotel span and counter) sees it accepted, refused (a 409
// Conflict carrying Tinystore-Fence-Largest: a guard in the service
// refused the request's write as stale) or failed (no answer, or another
// 4xx or 5xx). Given the lease, a refusal is also told to its store
// (Lease.ReportRefused), which counts it. The answer is returned as it
// came either way: read its status as ever. A nil Fence sends the zero
// fence and is seen by nobody.
type Transport struct {
	Base  http.RoundTripper
	Fence locks.Fenced
}

// RoundTrip sends a copy of req that carries the fence; req is left as it
// was, as the RoundTripper contract asks.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	out := req.Clone(req.Context())
	if t.Fence == nil {
		SetFence(out, locks.Fence{})
		return base.RoundTrip(out)
	}
	SetFence(out, t.Fence.WriteFence())
	resource := req.URL.Host + req.URL.Path
	var resp *http.Response
	var sent error
	_ = guardio.Checked(req.Context(), "guard.Transport", t.Fence, resource, "http", func(fence locks.Fence) error {
		resp, sent = base.RoundTrip(out)
		if sent != nil {
			return sent
		}
		return answered(resp, resource, fence)
	})
	return resp, sent
}

// answered is what resp says of a guarded request's write, as the core
// reads it (the same in every language): nil when accepted; a
// *locks.StaleError for a 409 that carries one fence in
// Tinystore-Fence-Largest; an io error saying what the answer was for
// another 4xx or 5xx, or a 409 without that header or with one that is
// not a fence.
func answered(resp *http.Response, resource string, fence locks.Fence) error {
	var largest *string
	if values := resp.Header.Values(LargestHeader); len(values) > 0 {
		joined := strings.Join(values, ", ")
		largest = &joined
	}
	stale, message, epoch, count, err := native.HTTPReadAnswer(resp.StatusCode, largest, resource, fence.Epoch, fence.Count)
	if stale {
		return &locks.StaleError{Resource: resource, Fence: fence, Largest: locks.Fence{Epoch: epoch, Count: count}, Message: message}
	}
	return err
}

// ReadFence reads the request's Tinystore-Fence header with the core's
// parser: ok false when it is missing; an invalid error naming the header
// and what is wrong (a sign, spaces, hex, 2^128, a header sent twice).
func ReadFence(req *http.Request) (fence locks.Fence, ok bool, err error) {
	values := req.Header.Values(FenceHeader)
	var value *string
	if len(values) > 0 {
		joined := strings.Join(values, ", ")
		value = &joined
	}
	present, epoch, count, err := native.FenceHeaderParse(value)
	if err != nil || !present {
		return locks.Fence{}, false, err
	}
	return locks.Fence{Epoch: epoch, Count: count}, true, nil
}

type fenceKey struct{}

// FenceFrom is the fence Middleware read from the request whose context
// ctx is: ok false when the request carried none.
func FenceFrom(ctx context.Context) (locks.Fence, bool) {
	fence, ok := ctx.Value(fenceKey{}).(locks.Fence)
	return fence, ok
}

// Middleware reads each request's Tinystore-Fence header into its context
// (FenceFrom) and calls next; a malformed header is answered 400 Bad
// Request with the parser's message, and next is not called.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fence, ok, err := ReadFence(r)
		if err != nil {
			WriteError(w, err)
			return
		}
		if ok {
			r = r.WithContext(context.WithValue(r.Context(), fenceKey{}, fence))
		}
		next.ServeHTTP(w, r)
	})
}

// WriteError answers a guard's or a header's error and reports whether it
// did: a stale error (*tinystore.StaleError) is 409 Conflict with the
// largest recorded fence in Tinystore-Fence-Largest, an invalid one 400
// Bad Request, each with the error's message as plain text. Any other
// error (or nil) is left to the caller, who usually answers 500.
func WriteError(w http.ResponseWriter, err error) bool {
	var stale *locks.StaleError
	var e *locks.Error
	switch {
	case errors.As(err, &stale):
		w.Header().Set(LargestHeader, stale.Largest.String())
		http.Error(w, stale.Message, names.Conflict)
	case errors.As(err, &e) && e.Code == locks.CodeInvalid:
		http.Error(w, e.Message, names.BadRequest)
	default:
		return false
	}
	return true
}

// HandlerFunc is a handler that returns its error for Handler to answer.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Handler is h behind Middleware, its error answered by WriteError, or
// 500 Internal Server Error with the error's text when WriteError leaves
// it; h must not have written the response when it returns an error.
func Handler(h HandlerFunc) http.Handler {
	return Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil && !WriteError(w, err) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
}
