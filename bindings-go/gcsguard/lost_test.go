package gcsguard_test

// The GCS guard when the answer to its upload is lost and
// cloud.google.com/go/storage makes it again (its retry of an upload
// whose generation condition is set), on fake-gcs-server through a proxy
// that forwards the first upload, waits for the server's answer, lets
// another writer in if the test says so, then closes the connection
// without a byte of that answer. The client sees the connection closed,
// and retries.
//
// The retry's condition fails, for the first attempt changed the object.
// The guard reads again: its own fence, it uploads once more (accepted);
// a larger fence, it says unavailable (the first attempt may have been
// written, as it was) and tells the lease's store nothing. A refusal
// whose answer came is stale, and told; so is a larger fence found after
// an attempt answered 429, which wrote nothing.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"

	"tinystore.dev/go/gcsguard"
	"tinystore.dev/go/internal/losingproxy"
	"tinystore.dev/go/internal/superseded"
	"tinystore.dev/go/tinystore"
)

// upload is fake-gcs-server's answer to an upload: the request line of a
// multipart upload.
func upload(request []byte) bool { return bytes.HasPrefix(request, []byte("POST /upload/")) }

func TestALostAnswerRetriedIsAcceptedOrInDoubtNeverStale(t *testing.T) {
	ctx := context.Background()
	upstream := emulator(t)
	leases := superseded.Open(t)
	older, newer := leases.Older, leases.Newer
	via := func(proxy string, obj *storage.ObjectHandle) *storage.ObjectHandle {
		return client(t, option.WithEndpoint(proxy+"/storage/v1/")).Bucket(bucket).Object(obj.ObjectName())
	}

	// Accepted, its answer lost: the retry's condition fails on the object
	// the first attempt wrote, the guard reads its own fence and uploads
	// again.
	alone := object(t)
	proxy, lost := losingproxy.Start(t, upstream, upload, func() {})
	if _, err := gcsguard.Upload(ctx, via(proxy, alone), []byte("by older"), older); err != nil {
		t.Fatal(err)
	}
	if !lost() {
		t.Fatal("the proxy lost no answer")
	}
	has(t, alone, "by older", older.Fence)

	// Accepted, its answer lost, overtaken before the retry: the older
	// upload landed (read there), so it may not be called stale.
	overtaken := object(t)
	var seen string
	proxy, lost = losingproxy.Start(t, upstream, upload, func() {
		seen, _, _ = content(t, overtaken)
		if _, err := gcsguard.Upload(ctx, overtaken, []byte("by newer"), newer.Fence); err != nil {
			t.Errorf("the newer writer: %v", err)
		}
	})
	_, err := gcsguard.Upload(ctx, via(proxy, overtaken), []byte("by older"), older)
	superseded.InDoubt(t, err)
	if !lost() || seen != "by older" {
		t.Fatalf("lost %v; the object read %q before the newer upload, want the older's", lost(), seen)
	}
	has(t, overtaken, "by newer", newer.Fence)
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// A refusal whose answer came (a writer between the guard's read and
	// its upload, the upload's 412 answered) is stale, and told: the one
	// refusal the store counts, so that the case above was not told.
	raced := object(t)
	r := &racing{between: func() {
		if _, err := gcsguard.Upload(ctx, raced, []byte("by newer"), newer.Fence); err != nil {
			t.Errorf("the writer between: %v", err)
		}
	}}
	racingObj := client(t, option.WithHTTPClient(&http.Client{Transport: r})).Bucket(bucket).Object(raced.ObjectName())
	_, err = gcsguard.Upload(ctx, racingObj, []byte("by older"), older)
	stale(t, err, raced, older.Fence, newer.Fence)
	has(t, raced, "by newer", newer.Fence)
	want := tinystore.RefusedStatus{Name: "chats", Kind: "lock", Refused: 1}
	if got := leases.Refused(t); len(got) != 1 || got[0] != want {
		t.Fatalf("late writes refused: %v; want %v", got, want)
	}

	// A 429 is the server's answer: that attempt wrote nothing. The proxy
	// keeps the first upload from the server, lets the newer holder
	// write, and answers 429; the client uploads again, whose condition
	// fails on the newer object, and the guard reads the larger fence:
	// stale, and told, not in doubt (core's rule: only no answer, a 5xx or
	// a 408 leave an attempt's outcome unknown).
	throttled := object(t)
	var reached bool
	proxy, answered := losingproxy.Answering(t, upstream, upload, func() {
		_, _, reached = content(t, throttled)
		if _, err := gcsguard.Upload(ctx, throttled, []byte("by newer"), newer.Fence); err != nil {
			t.Errorf("the newer writer: %v", err)
		}
	}, tooManyRequests())
	_, err = gcsguard.Upload(ctx, via(proxy, throttled), []byte("by older"), older)
	stale(t, err, throttled, older.Fence, newer.Fence)
	if !answered() || reached {
		t.Fatalf("answered 429 %v; the throttled upload reached the server %v", answered(), reached)
	}
	has(t, throttled, "by newer", newer.Fence)
	want.Refused = 2
	if got := leases.Refused(t); len(got) != 1 || got[0] != want {
		t.Fatalf("late writes refused: %v; want %v", got, want)
	}
}

// Each attempt made again is told, not only the first: the proxy answers
// the first upload 429 (it wrote nothing), forwards the second and loses
// its answer after fake-gcs-server wrote it, and lets the newer holder
// write; the third attempt's condition fails and the guard reads the
// larger fence. The second attempt was written: in doubt, never stale,
// and the store is told nothing.
func TestA429ThenALostAnswerThenANewerWriterIsInDoubt(t *testing.T) {
	ctx := context.Background()
	upstream := emulator(t)
	leases := superseded.Open(t)
	older, newer := leases.Older, leases.Newer
	obj := object(t)
	var seen string
	proxy, played := losingproxy.Plan(t, upstream, upload, func() {
		seen, _, _ = content(t, obj)
		if _, err := gcsguard.Upload(ctx, obj, []byte("by newer"), newer.Fence); err != nil {
			t.Errorf("the newer writer: %v", err)
		}
	}, [][]byte{tooManyRequests(), nil})
	proxied := client(t, option.WithEndpoint(proxy+"/storage/v1/")).Bucket(bucket).Object(obj.ObjectName())
	_, err := gcsguard.Upload(ctx, proxied, []byte("by older"), older)
	superseded.InDoubt(t, err)
	if played() != 2 || seen != "by older" {
		t.Fatalf("steps played %d, want 2; the object read %q before the newer upload, want the older's", played(), seen)
	}
	has(t, obj, "by newer", newer.Fence)
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}
}

// tooManyRequests is an HTTP 429 answer in the JSON API's form.
func tooManyRequests() []byte {
	body := `{"error": {"code": 429, "message": "rate limited by the test"}}`
	return []byte(fmt.Sprintf("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}
