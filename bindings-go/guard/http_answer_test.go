package guard_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// Transport reads each answer as the core does, seen by the Observer: a
// 409 carrying a fence in Tinystore-Fence-Largest is stale; a 409 without
// it, or with a value that is not a fence, is io saying so, as is a 503;
// a 200 is accepted.
func TestTransportReadsAnAnswerAsTheCoreDoes(t *testing.T) {
	seen := &checks{}
	locks.SetObserver(seen)
	t.Cleanup(func() { locks.SetObserver(nil) })
	largest := map[string][]string{"/bare": nil, "/nine": {"nine"}, "/twice": {"12", "13"}, "/stale": {"12"}}
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			return
		case "/busy":
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		for _, value := range largest[r.URL.Path] {
			w.Header().Add(guard.LargestHeader, value)
		}
		w.WriteHeader(http.StatusConflict)
	}))
	defer service.Close()
	fence := locks.Fence{Count: 5}
	client := &http.Client{Transport: &guard.Transport{Fence: fence}}
	host := service.Listener.Addr().String()
	answer := func(path string) (int, error) {
		t.Helper()
		resp, err := client.Post(service.URL+path, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		seen.mu.Lock()
		defer seen.mu.Unlock()
		last := seen.seen[len(seen.seen)-1]
		if last.resource != host+path || last.backend != "http" || last.fence != fence {
			t.Fatalf("%s seen as %+v", path, last)
		}
		return resp.StatusCode, last.err
	}

	code, err := answer("/stale")
	var stale *locks.StaleError
	if code != http.StatusConflict || !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: 12}) || stale.Resource != host+"/stale" {
		t.Fatalf("/stale: %d, %v; want 409 and stale, largest 12", code, err)
	}
	for _, c := range []struct {
		path string
		code int
		says string
	}{
		{"/bare", 409, `the service answered 409 to the write to "` + host + `/bare" without the header Tinystore-Fence-Largest: not a guard's refusal`},
		{"/nine", 409, `with a header Tinystore-Fence-Largest that is not a fence: fence text "nine" is not a decimal`},
		{"/twice", 409, `that is not a fence: fence text "12, 13" is not a decimal`},
		{"/busy", 503, `the service answered 503 to the write to "` + host + `/busy"`},
	} {
		code, err := answer(c.path)
		if code != c.code || errors.As(err, &stale) || !errors.Is(err, locks.ErrIO) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("%s: %d, %v; want %d and io saying %q", c.path, code, err, c.code, c.says)
		}
	}
	if code, err := answer("/ok"); code != http.StatusOK || err != nil {
		t.Fatalf("/ok: %d, %v; want 200 and accepted", code, err)
	}
}
