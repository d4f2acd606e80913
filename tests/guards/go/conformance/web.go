package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// web is the http backend: a net/http server on a loopback port whose
// handler reads the request's fence with guard.Handler and guards a
// SQLite file with it (the sqlite backend's); the client attaches the
// fence with guard.Transport.
type web struct {
	*sqliteDB
	server *http.Server
	base   string
}

func openHTTP(ctx context.Context, resource string) (*web, error) {
	db, err := openSQLite(ctx, resource)
	if err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.close()
		return nil, err
	}
	w := &web{sqliteDB: db, base: "http://" + listener.Addr().String()}
	mux := http.NewServeMux()
	mux.Handle("POST /write/{resource}", guard.Handler(w.save))
	w.server = &http.Server{Handler: mux}
	go func() { _ = w.server.Serve(listener) }()
	return w, nil
}

// save is the service: the handler's own row and the guard's check of the
// request's fence, in one transaction. A refusal goes to guard.Handler
// (409 for stale, 400 for invalid, else 500 with the error's text).
func (w *web) save(rw http.ResponseWriter, r *http.Request) error {
	f, ok := guard.FenceFrom(r.Context())
	if !ok {
		http.Error(rw, guard.FenceHeader+" is required", http.StatusPreconditionRequired)
		return nil
	}
	tx, err := w.db.BeginTx(r.Context(), nil)
	if err != nil {
		return err
	}
	if err := w.writeOn(r.Context(), tx, f, r.PathValue("resource")); err != nil {
		return err
	}
	_, err = io.WriteString(rw, "saved")
	return err
}

func (w *web) close() {
	_ = w.server.Close()
	w.sqliteDB.close()
}

// answer is a response's status, its body and its largest-fence header.
type answer struct {
	status  int
	body    string
	largest string
}

func (w *web) post(ctx context.Context, client *http.Client, header *string, resource string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/write/"+url.PathEscape(resource), nil)
	if err != nil {
		return answer{}, err
	}
	if header != nil {
		req.Header.Set(guard.FenceHeader, *header)
	}
	res, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, strings.TrimSpace(string(body)), res.Header.Get(guard.LargestHeader)}, err
}

// write is a request with the fence attached by guard.Transport; its
// answer becomes the outcome the expectations judge: 200 accepted, 409 a
// *StaleError with the largest from the header, 500 the error's code.
func (w *web) write(ctx context.Context, f locks.Fence, _ *string, resource string) error {
	unchanged, err := w.unchanged(ctx)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &guard.Transport{Fence: f}}
	a, err := w.post(ctx, client, nil, resource)
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		if err := unchanged(); err != nil {
			return fmt.Errorf("%d %q: %w", a.status, a.body, err)
		}
	}
	switch {
	case a.status == http.StatusOK:
		return nil
	case a.status == http.StatusConflict:
		largest, err := locks.ParseFence(a.largest)
		if err != nil {
			return fmt.Errorf("409 whose %s is %q: %w", guard.LargestHeader, a.largest, err)
		}
		if !strings.Contains(a.body, resource) {
			return fmt.Errorf("the 409 does not name the resource: %q", a.body)
		}
		return &locks.StaleError{Resource: resource, Fence: f, Largest: largest, Message: a.body}
	case a.status == http.StatusInternalServerError && strings.HasPrefix(a.body, string(locks.CodeCorrupt)+": "):
		return &locks.Error{Code: locks.CodeCorrupt, Message: strings.TrimPrefix(a.body, string(locks.CodeCorrupt)+": ")}
	}
	return fmt.Errorf("answered %d %q", a.status, a.body)
}

func (w *web) steps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		// A raw header, sent by a client with no helper: 400 naming it.
		"write_header": func(ctx context.Context, a args, st step) error {
			want := string(st.expect("expect"))
			if want != `"bad_request"` {
				return fmt.Errorf("the runner does not know %s for a raw header", want)
			}
			got, err := w.post(ctx, http.DefaultClient, a.FenceHeader, w.resource)
			if err != nil {
				return err
			}
			if got.status != http.StatusBadRequest || !strings.Contains(got.body, guard.FenceHeader) {
				return fmt.Errorf("expected 400 naming %s, got %d %q", guard.FenceHeader, got.status, got.body)
			}
			return nil
		},
	}
}
