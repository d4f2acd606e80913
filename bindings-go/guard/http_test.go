package guard_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// headerCase is one case of vectors/behaviour.json's "fence_header".
type headerCase struct {
	ID         string  `json:"id"`
	Value      *string `json:"value"`
	Expect     string  `json:"expect"`
	Fence      string  `json:"fence"`
	MessageHas string  `json:"message_has"`
}

func headerCases(t *testing.T) []headerCase {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/behaviour.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		FenceHeader struct {
			Cases []headerCase `json:"cases"`
		} `json:"fence_header"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.FenceHeader.Cases) == 0 {
		t.Fatal("vectors/behaviour.json has no fence_header cases")
	}
	return vectors.FenceHeader.Cases
}

// echo answers the fence Middleware put in the request's context, or
// "none".
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if fence, ok := guard.FenceFrom(r.Context()); ok {
		_, _ = io.WriteString(w, fence.String())
		return
	}
	_, _ = io.WriteString(w, "none")
})

func send(t *testing.T, req *http.Request) (int, string, http.Header) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(body)), resp.Header
}

// Every fence_header vector, sent as a raw header to a real server on
// loopback behind Middleware.
func TestEveryFenceHeaderVector(t *testing.T) {
	server := httptest.NewServer(guard.Middleware(echo))
	defer server.Close()
	for _, c := range headerCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, server.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Value != nil {
				req.Header[guard.FenceHeader] = []string{*c.Value}
			}
			status, body, _ := send(t, req)
			switch c.Expect {
			case "none":
				if status != 200 || body != "none" {
					t.Fatalf("got %d %q, want 200 none", status, body)
				}
			case "fence":
				if status != 200 || body != c.Fence {
					t.Fatalf("got %d %q, want 200 %s", status, body, c.Fence)
				}
			case "invalid":
				if status != 400 || !strings.Contains(body, c.MessageHas) {
					t.Fatalf("got %d %q, want 400 naming %q", status, body, c.MessageHas)
				}
			default:
				t.Fatalf("unknown expect %q", c.Expect)
			}
		})
	}
}

// A header sent twice is two values on the wire; they are read joined,
// and refused.
func TestAHeaderSentTwiceIsRefused(t *testing.T) {
	server := httptest.NewServer(guard.Middleware(echo))
	defer server.Close()
	req, _ := http.NewRequest(http.MethodGet, server.URL, nil)
	req.Header.Add(guard.FenceHeader, "42")
	req.Header.Add(guard.FenceHeader, "43")
	if status, body, _ := send(t, req); status != 400 || !strings.Contains(body, "Tinystore-Fence") {
		t.Fatalf("got %d %q", status, body)
	}
}

// The client helpers attach the fence's decimal; the caller's request is
// left as it was.
func TestTransportAndSetFenceAttachTheFence(t *testing.T) {
	server := httptest.NewServer(guard.Middleware(echo))
	defer server.Close()
	big := locks.Fence{Epoch: 1, Count: 0} // 2^64
	client := &http.Client{Transport: &guard.Transport{Fence: big}}
	req, _ := http.NewRequest(http.MethodGet, server.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "18446744073709551616" {
		t.Fatalf("the server read %q", body)
	}
	if req.Header.Get(guard.FenceHeader) != "" {
		t.Fatal("Transport changed the caller's request")
	}
	req, _ = http.NewRequest(http.MethodGet, server.URL, nil)
	guard.SetFence(req, locks.Fence{Count: 7})
	if _, body, _ := send(t, req); body != "7" {
		t.Fatalf("the server read %q", body)
	}
}

// Handler answers a handler's stale error 409 with the largest fence, an
// invalid one 400, any other 500; nil lets the handler's answer through.
func TestHandlerMapsTheGuardsErrors(t *testing.T) {
	stale := &locks.StaleError{Resource: "chats/1", Fence: locks.Fence{Count: 7},
		Largest: locks.Fence{Epoch: 1, Count: 0}, Message: "the write to chats/1 is stale"}
	answers := map[string]error{
		"/stale":   stale,
		"/wrapped": errors.Join(errors.New("saving"), stale),
		"/invalid": &locks.Error{Code: locks.CodeInvalid, Message: "bad summary"},
		"/io":      &locks.Error{Code: locks.CodeIO, Message: "disk gone"},
		"/ok":      nil,
	}
	server := httptest.NewServer(guard.Handler(func(w http.ResponseWriter, r *http.Request) error {
		if err := answers[r.URL.Path]; err != nil {
			return err
		}
		_, _ = io.WriteString(w, "saved")
		return nil
	}))
	defer server.Close()
	for path, want := range map[string]struct {
		status  int
		body    string
		largest string
	}{
		"/stale":   {409, "the write to chats/1 is stale", "18446744073709551616"},
		"/wrapped": {409, "the write to chats/1 is stale", "18446744073709551616"},
		"/invalid": {400, "bad summary", ""},
		"/io":      {500, "io: disk gone", ""},
		"/ok":      {200, "saved", ""},
	} {
		req, _ := http.NewRequest(http.MethodPost, server.URL+path, nil)
		status, body, header := send(t, req)
		if status != want.status || body != want.body || header.Get(guard.LargestHeader) != want.largest {
			t.Errorf("%s: got %d %q largest %q, want %+v", path, status, body, header.Get(guard.LargestHeader), want)
		}
	}
	// A malformed header never reaches the handler.
	req, _ := http.NewRequest(http.MethodPost, server.URL+"/ok", nil)
	req.Header.Set(guard.FenceHeader, "-1")
	if status, body, _ := send(t, req); status != 400 || !strings.Contains(body, "Tinystore-Fence") {
		t.Fatalf("got %d %q", status, body)
	}
}

func TestTheHeaderNamesAreTheCores(t *testing.T) {
	if guard.FenceHeader != "Tinystore-Fence" || guard.LargestHeader != "Tinystore-Fence-Largest" {
		t.Fatalf("%q %q", guard.FenceHeader, guard.LargestHeader)
	}
}
