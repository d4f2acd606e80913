package azureguard_test

// The Azure Blob guard on Azurite ($TINYSTORE_AZURE_CONNECTION_STRING,
// with a container "tinystore"; tests/guards/with-azurite.sh starts it),
// through the real azblob client: the rule (equal and larger uploaded,
// smaller stale with nothing written), a blob written without the guard
// taken over, a hand-edited fence, the guard's own metadata key, your own
// conditions and bad names refused before any call, a writer between the
// guard's read and its upload (a real second writer, let in by the first
// client's transport), and the service gone. Without the variable these
// tests skip, unless TINYSTORE_REQUIRE_AZURE=1 (as `make test-go` sets
// it), where they fail.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"tinystore.dev/go/azureguard"
	"tinystore.dev/go/locks"
)

const container = "tinystore"

var names atomic.Int64

// connection is Azurite's connection string; the tests skip without it
// unless TINYSTORE_REQUIRE_AZURE=1.
func connection(t *testing.T) string {
	t.Helper()
	s := os.Getenv("TINYSTORE_AZURE_CONNECTION_STRING")
	if s == "" {
		if os.Getenv("TINYSTORE_REQUIRE_AZURE") == "1" {
			t.Fatal("TINYSTORE_REQUIRE_AZURE=1 but TINYSTORE_AZURE_CONNECTION_STRING is unset: run under tests/guards/with-azurite.sh")
		}
		t.Skip("TINYSTORE_AZURE_CONNECTION_STRING is unset: run under tests/guards/with-azurite.sh")
	}
	return s
}

// clientOf is a client of the blob name on the service of conn, with no
// retries, over transport (nil: the default).
func clientOf(t *testing.T, conn, name string, transport policy.Transporter) *blockblob.Client {
	t.Helper()
	opts := &blockblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}, Transport: transport}}
	c, err := blockblob.NewClientFromConnectionString(conn, container, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fresh is a client of a fresh blob.
func fresh(t *testing.T) *blockblob.Client {
	return clientOf(t, connection(t), fmt.Sprintf("go-%d-%d", time.Now().UnixNano(), names.Add(1)), nil)
}

func name(t *testing.T, c *blockblob.Client) string {
	t.Helper()
	parts, err := blob.ParseURL(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	return parts.BlobName
}

func digits(f locks.Fence) string {
	return strings.Repeat("0", 40-len(f.String())) + f.String()
}

func ptr(s string) *string { return &s }

// content is the blob's body and fence (its metadata names compared
// without case), or ok false when there is none.
func content(t *testing.T, c *blockblob.Client) (body, fence string, metadata map[string]*string, ok bool) {
	t.Helper()
	got, err := c.DownloadStream(context.Background(), nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		return "", "", nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	data, err := io.ReadAll(got.Body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range got.Metadata {
		if strings.EqualFold(k, azureguard.MetadataKey) && v != nil {
			fence = *v
		}
	}
	return string(data), fence, got.Metadata, true
}

func has(t *testing.T, c *blockblob.Client, body string, fence locks.Fence) {
	t.Helper()
	got, recorded, _, ok := content(t, c)
	if !ok || got != body || recorded != digits(fence) {
		t.Fatalf("the blob holds %q with fence %q (%v), want %q with %s", got, recorded, ok, body, digits(fence))
	}
}

// plain uploads without the guard.
func plain(t *testing.T, c *blockblob.Client, body string, metadata map[string]*string) {
	t.Helper()
	_, err := c.Upload(context.Background(), streaming.NopCloser(bytes.NewReader([]byte(body))), &blockblob.UploadOptions{Metadata: metadata})
	if err != nil {
		t.Fatal(err)
	}
}

func stale(t *testing.T, err error, c *blockblob.Client, fence, largest locks.Fence) {
	t.Helper()
	var e *locks.StaleError
	resource := container + "/" + name(t, c)
	if !errors.As(err, &e) || !errors.Is(err, locks.ErrStale) || e.Resource != resource || e.Fence != fence || e.Largest != largest {
		t.Fatalf("got %v (%+v), want stale of %s, fence %v, largest %v", err, e, resource, fence, largest)
	}
}

// An equal or larger fence is uploaded with your options, a smaller one
// is stale with the largest and writes nothing, across epochs too.
func TestEqualAndLargerAreUploadedAndSmallerIsStaleWritingNothing(t *testing.T) {
	ctx := context.Background()
	c := fresh(t)
	seven, nine := locks.Fence{Count: 7}, locks.Fence{Count: 9}
	for i, f := range []locks.Fence{seven, seven, nine} {
		body := fmt.Sprintf("by %v (%d)", f, i)
		opts := &blockblob.UploadBufferOptions{
			Metadata:    map[string]*string{"owner": ptr("me")},
			HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("text/plain")},
		}
		got, err := azureguard.UploadBuffer(ctx, c, []byte(body), f, opts)
		if err != nil {
			t.Fatalf("upload %d: %v", i, err)
		}
		if got.ETag == nil {
			t.Fatalf("upload %d answered no ETag", i)
		}
		if _, mine := opts.Metadata[azureguard.MetadataKey]; mine {
			t.Fatal("the guard wrote its fence into the caller's options")
		}
	}
	has(t, c, "by 9 (2)", nine)
	props, err := c.GetProperties(ctx, nil)
	if err != nil || props.ContentType == nil || *props.ContentType != "text/plain" {
		t.Fatalf("properties %+v (%v), want text/plain", props, err)
	}
	if _, _, metadata, _ := content(t, c); len(metadata) != 2 {
		t.Fatalf("metadata %v, want owner and the fence", metadata)
	}
	_, err = azureguard.UploadBuffer(ctx, c, []byte("late"), locks.Fence{Count: 8}, nil)
	stale(t, err, c, locks.Fence{Count: 8}, nine)
	has(t, c, "by 9 (2)", nine)
	epoch := locks.Fence{Epoch: 1}
	if _, err := azureguard.UploadBuffer(ctx, c, []byte("epoch 1"), epoch, nil); err != nil {
		t.Fatal(err)
	}
	_, err = azureguard.UploadBuffer(ctx, c, []byte("late"), locks.Fence{Count: 1 << 62}, nil)
	stale(t, err, c, locks.Fence{Count: 1 << 62}, epoch)
	has(t, c, "epoch 1", epoch)
}

// A blob written without the guard has no fence: the guard takes it
// over, and the rule holds from then on.
func TestABlobWrittenWithoutTheGuardIsTakenOver(t *testing.T) {
	ctx := context.Background()
	c := fresh(t)
	plain(t, c, "plain", map[string]*string{"owner": ptr("someone")})
	if _, err := azureguard.UploadBuffer(ctx, c, []byte("guarded"), locks.Fence{Count: 3}, nil); err != nil {
		t.Fatal(err)
	}
	has(t, c, "guarded", locks.Fence{Count: 3})
	_, err := azureguard.UploadBuffer(ctx, c, []byte("late"), locks.Fence{Count: 2}, nil)
	stale(t, err, c, locks.Fence{Count: 2}, locks.Fence{Count: 3})
}

// A fence edited by hand, under the key in any case, is corrupt, naming
// the key and the resource, and nothing is written.
func TestAHandEditedFenceIsCorruptAndWritesNothing(t *testing.T) {
	for _, key := range []string{azureguard.MetadataKey, "Tinystore_Fence"} {
		c := fresh(t)
		plain(t, c, "edited", map[string]*string{key: ptr("seven")})
		_, err := azureguard.UploadBuffer(context.Background(), c, []byte("v"), locks.Fence{Count: 7}, nil)
		if !errors.Is(err, locks.ErrCorrupt) || !strings.Contains(err.Error(), azureguard.MetadataKey) ||
			!strings.Contains(err.Error(), name(t, c)) {
			t.Fatalf("%s: got %v, want corrupt naming the key and the blob", key, err)
		}
		if body, fence, _, _ := content(t, c); body != "edited" || fence != "seven" {
			t.Fatalf("the blob holds %q, %q", body, fence)
		}
	}
}

// Your metadata under the guard's own key, your own conditions, a nil
// client and a URL with no blob are invalid, and nothing is called.
func TestTheGuardsOwnKeyYourConditionsAndBadNamesAreInvalidBeforeAnyCall(t *testing.T) {
	ctx := context.Background()
	c := fresh(t)
	for _, key := range []string{"tinystore_fence", "Tinystore-Fence", "TINYSTORE_DELETED"} {
		opts := &blockblob.UploadBufferOptions{Metadata: map[string]*string{key: ptr("1")}}
		_, err := azureguard.UploadBuffer(ctx, c, []byte("v"), locks.Fence{Count: 1}, opts)
		if !errors.Is(err, locks.ErrInvalid) || !strings.Contains(err.Error(), key) {
			t.Fatalf("metadata %q: got %v, want invalid naming it", key, err)
		}
	}
	etag := azcore.ETagAny
	mine := &blockblob.UploadBufferOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &etag}}}
	if _, err := azureguard.UploadBuffer(ctx, c, []byte("v"), locks.Fence{Count: 1}, mine); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("your own conditions: got %v, want invalid", err)
	}
	if _, _, _, ok := content(t, c); ok {
		t.Fatal("an invalid upload wrote the blob")
	}
	if _, err := azureguard.UploadBuffer(ctx, nil, []byte("v"), locks.Fence{Count: 1}, nil); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("a nil client: got %v, want invalid", err)
	}
	noBlob, err := blockblob.NewClientWithNoCredential("http://127.0.0.1:1/devstoreaccount1/tinystore", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := azureguard.UploadBuffer(ctx, noBlob, []byte("v"), locks.Fence{Count: 1}, nil); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("no blob: got %v, want invalid", err)
	}
}

// racing is a transport whose first Put Blob lets another writer in
// first: a real second writer, through a client of its own.
type racing struct {
	once    sync.Once
	between func()
}

func (r *racing) Do(req *http.Request) (*http.Response, error) {
	// Put Blob: a PUT of the blob itself (Put Block and Put Block List
	// name their comp=).
	if req.Method == http.MethodPut && req.URL.Query().Get("comp") == "" {
		r.once.Do(r.between)
	}
	return http.DefaultClient.Do(req)
}

// A writer between the guard's read and its upload fails the upload's
// condition (If-Match, or If-None-Match: * on a new blob): the guard reads
// again and decides again.
func TestAWriterBetweenTheReadAndTheUploadIsSeenOnTheSecondRead(t *testing.T) {
	ctx := context.Background()
	conn := connection(t)
	for _, first := range []*locks.Fence{nil, {Count: 5}} {
		c := fresh(t)
		if first != nil {
			if _, err := azureguard.UploadBuffer(ctx, c, []byte("first"), *first, nil); err != nil {
				t.Fatal(err)
			}
		}
		in := func(between locks.Fence) *blockblob.Client {
			r := &racing{between: func() {
				if _, err := azureguard.UploadBuffer(ctx, c, []byte("between"), between, nil); err != nil {
					t.Errorf("the writer between: %v", err)
				}
			}}
			return clientOf(t, conn, name(t, c), r)
		}
		_, err := azureguard.UploadBuffer(ctx, in(locks.Fence{Count: 9}), []byte("late"), locks.Fence{Count: 7}, nil)
		stale(t, err, c, locks.Fence{Count: 7}, locks.Fence{Count: 9})
		has(t, c, "between", locks.Fence{Count: 9})
		if _, err := azureguard.UploadBuffer(ctx, in(locks.Fence{Count: 10}), []byte("after"), locks.Fence{Count: 11}, nil); err != nil {
			t.Fatal(err)
		}
		has(t, c, "after", locks.Fence{Count: 11})
	}
}

// A service that cannot be reached is unavailable, naming the resource
// and wrapping the client's error.
func TestTheServiceGoneIsUnavailable(t *testing.T) {
	conn := connection(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	parts := strings.Split(conn, ";")
	for i, p := range parts {
		if strings.HasPrefix(p, "BlobEndpoint=") {
			parts[i] = "BlobEndpoint=http://" + addr + "/devstoreaccount1"
		}
	}
	c := clientOf(t, strings.Join(parts, ";"), "gone", nil)
	_, err = azureguard.UploadBuffer(context.Background(), c, []byte("v"), locks.Fence{Count: 1}, nil)
	var op *net.OpError
	if !errors.Is(err, locks.ErrUnavailable) || !strings.Contains(err.Error(), "tinystore/gone") || !errors.As(err, &op) {
		t.Fatalf("got %v, want unavailable naming the blob, wrapping the client's error", err)
	}
}
