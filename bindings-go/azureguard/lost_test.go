package azureguard_test

// The Azure Blob guard when the answer to its upload is lost and azcore's
// retry policy makes it again, on Azurite through a proxy that forwards
// the first Put Blob, waits for the service's answer, lets another writer
// in if the test says so, then closes the connection without a byte of
// that answer. The client sees the connection closed, and retries.
//
// The retry's condition fails, for the first attempt changed the blob.
// The guard reads again: its own fence, it uploads once more (accepted);
// a larger fence, it says unavailable (the first attempt may have been
// written, as it was) and tells the lease's store nothing. A refusal
// whose answer came is stale, and told.

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"tinystore.dev/go/azureguard"
	"tinystore.dev/go/internal/losingproxy"
	"tinystore.dev/go/internal/superseded"
	"tinystore.dev/go/tinystore"
)

// putBlob is a Put Blob's request line: a PUT of the blob itself (Put
// Block and Put Block List name their comp=).
func putBlob(request []byte) bool {
	line, _, _ := bytes.Cut(request, []byte("\r\n"))
	return bytes.HasPrefix(line, []byte("PUT /")) && !bytes.Contains(line, []byte("comp="))
}

// via is conn with its blob endpoint through the proxy at proxy, and
// the endpoint it had.
func via(t *testing.T, conn, proxy string) (string, string) {
	t.Helper()
	parts := strings.Split(conn, ";")
	upstream := ""
	for i, p := range parts {
		if endpoint, ok := strings.CutPrefix(p, "BlobEndpoint="); ok {
			u, err := url.Parse(endpoint)
			if err != nil {
				t.Fatal(err)
			}
			upstream = endpoint
			parts[i] = "BlobEndpoint=" + proxy + u.Path
		}
	}
	if upstream == "" {
		t.Fatalf("the connection string names no BlobEndpoint")
	}
	return strings.Join(parts, ";"), upstream
}

func endpoint(t *testing.T, conn string) string {
	t.Helper()
	_, upstream := via(t, conn, "")
	return upstream
}

func TestALostAnswerRetriedIsAcceptedOrInDoubtNeverStale(t *testing.T) {
	ctx := context.Background()
	conn := connection(t)
	upstream := endpoint(t, conn)
	leases := superseded.Open(t)
	older, newer := leases.Older, leases.Newer
	// The first upload retries as azcore's defaults say; the others sooner,
	// with retry options of their own.
	quick := azureguard.Retry(policy.RetryOptions{RetryDelay: time.Millisecond})
	through := func(proxy string) string {
		proxied, _ := via(t, conn, proxy)
		return proxied
	}

	// Accepted, its answer lost: the retry's condition fails on the blob
	// the first attempt wrote, the guard reads its own fence and uploads
	// again.
	alone := fresh(t)
	proxy, lost := losingproxy.Start(t, upstream, putBlob, func() {})
	if _, err := azureguard.UploadBuffer(ctx, clientOf(t, through(proxy), name(t, alone), nil), []byte("by older"), older, nil); err != nil {
		t.Fatal(err)
	}
	if !lost() {
		t.Fatal("the proxy lost no answer")
	}
	has(t, alone, "by older", older.Fence)

	// Accepted, its answer lost, overtaken before the retry: the older
	// upload landed (read there), so it may not be called stale.
	overtaken := fresh(t)
	var seen string
	proxy, lost = losingproxy.Start(t, upstream, putBlob, func() {
		seen, _, _, _ = content(t, overtaken)
		if _, err := azureguard.UploadBuffer(ctx, overtaken, []byte("by newer"), newer.Fence, nil); err != nil {
			t.Errorf("the newer writer: %v", err)
		}
	})
	_, err := azureguard.UploadBuffer(ctx, clientOf(t, through(proxy), name(t, overtaken), nil), []byte("by older"), older, nil, quick)
	superseded.InDoubt(t, err)
	if !lost() || seen != "by older" {
		t.Fatalf("lost %v; the blob read %q before the newer upload, want the older's", lost(), seen)
	}
	has(t, overtaken, "by newer", newer.Fence)
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// A refusal whose answer came (a writer between the guard's read and
	// its upload, the upload's failed condition answered) is stale, and
	// told: the one refusal the store counts, so that the case above was
	// not told.
	raced := fresh(t)
	r := &racing{between: func() {
		if _, err := azureguard.UploadBuffer(ctx, raced, []byte("by newer"), newer.Fence, nil); err != nil {
			t.Errorf("the writer between: %v", err)
		}
	}}
	_, err = azureguard.UploadBuffer(ctx, clientOf(t, conn, name(t, raced), r), []byte("by older"), older, nil, quick)
	stale(t, err, raced, older.Fence, newer.Fence)
	has(t, raced, "by newer", newer.Fence)
	want := tinystore.RefusedStatus{Name: "chats", Kind: "lock", Refused: 1}
	if got := leases.Refused(t); len(got) != 1 || got[0] != want {
		t.Fatalf("late writes refused: %v; want %v", got, want)
	}
}

// serverBusy is Azure's 503 answer to a request it could not take.
const serverBusy = "HTTP/1.1 503 Server Busy\r\nx-ms-error-code: ServerBusy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

// Each attempt made again is told, not only the last: the proxy answers
// the first Put Blob 503 without passing it on, forwards the second (which
// azcore sends with Expect: 100-continue) and loses its final answer after
// Azurite wrote it, and lets the newer holder write; the third attempt's
// condition fails and the guard reads the larger fence. The second
// attempt was written: in doubt, never stale, and the store is told
// nothing.
func TestEveryAttemptMadeAgainIsToldNotOnlyTheLast(t *testing.T) {
	ctx := context.Background()
	conn := connection(t)
	leases := superseded.Open(t)
	older, newer := leases.Older, leases.Newer
	blob := fresh(t)
	var seen string
	proxy, played := losingproxy.Plan(t, endpoint(t, conn), putBlob, func() {
		seen, _, _, _ = content(t, blob)
		if _, err := azureguard.UploadBuffer(ctx, blob, []byte("by newer"), newer.Fence, nil); err != nil {
			t.Errorf("the newer writer: %v", err)
		}
	}, [][]byte{[]byte(serverBusy), nil})
	proxied, _ := via(t, conn, proxy)
	quick := azureguard.Retry(policy.RetryOptions{RetryDelay: time.Millisecond})
	_, err := azureguard.UploadBuffer(ctx, clientOf(t, proxied, name(t, blob), nil), []byte("by older"), older, nil, quick)
	superseded.InDoubt(t, err)
	if played() != 2 || seen != "by older" {
		t.Fatalf("steps played %d, want 2; the blob read %q before the newer upload, want the older's", played(), seen)
	}
	has(t, blob, "by newer", newer.Fence)
	if got := leases.Refused(t); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}
}
