package gcsguard_test

// The GCS guard on fake-gcs-server ($TINYSTORE_GCS_URL and
// $STORAGE_EMULATOR_HOST, with a bucket "tinystore";
// tests/guards/with-gcs.sh starts it), through the real
// cloud.google.com/go/storage client: the rule (equal and larger
// uploaded, smaller stale with nothing written), an object written
// without the guard taken over, a hand-edited fence, the guard's own
// metadata key and bad names refused before any call, a writer between
// the guard's read and its upload (a real second writer, let in by the
// first client's transport), and the server gone. Without the variable
// these tests skip, unless TINYSTORE_REQUIRE_GCS=1 (as `make test-go`
// sets it), where they fail.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"

	"tinystore.dev/go/gcsguard"
	"tinystore.dev/go/locks"
)

const bucket = "tinystore"

var names atomic.Int64

// emulator is fake-gcs-server's address; the tests skip without it unless
// TINYSTORE_REQUIRE_GCS=1.
func emulator(t *testing.T) string {
	t.Helper()
	url := os.Getenv("TINYSTORE_GCS_URL")
	if url == "" || os.Getenv("STORAGE_EMULATOR_HOST") == "" {
		if os.Getenv("TINYSTORE_REQUIRE_GCS") == "1" {
			t.Fatal("TINYSTORE_REQUIRE_GCS=1 but TINYSTORE_GCS_URL or STORAGE_EMULATOR_HOST is unset: run under tests/guards/with-gcs.sh")
		}
		t.Skip("TINYSTORE_GCS_URL is unset: run under tests/guards/with-gcs.sh")
	}
	return url
}

func client(t *testing.T, opts ...option.ClientOption) *storage.Client {
	t.Helper()
	c, err := storage.NewClient(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// object is a fresh object of the bucket on a client of its own.
func object(t *testing.T) *storage.ObjectHandle {
	emulator(t)
	name := fmt.Sprintf("go-%d-%d", time.Now().UnixNano(), names.Add(1))
	return client(t).Bucket(bucket).Object(name)
}

func digits(f locks.Fence) string {
	return strings.Repeat("0", 40-len(f.String())) + f.String()
}

// content is the object's body and fence, or ok false when there is none.
func content(t *testing.T, obj *storage.ObjectHandle) (body, fence string, ok bool) {
	t.Helper()
	ctx := context.Background()
	attrs, err := obj.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return "", "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := obj.NewReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), attrs.Metadata[gcsguard.MetadataKey], true
}

func has(t *testing.T, obj *storage.ObjectHandle, body string, fence locks.Fence) {
	t.Helper()
	got, recorded, ok := content(t, obj)
	if !ok || got != body || recorded != digits(fence) {
		t.Fatalf("the object holds %q with fence %q (%v), want %q with %s", got, recorded, ok, body, digits(fence))
	}
}

// plain uploads without the guard.
func plain(t *testing.T, obj *storage.ObjectHandle, body string, metadata map[string]string) {
	t.Helper()
	w := obj.NewWriter(context.Background())
	w.Metadata = metadata
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func stale(t *testing.T, err error, obj *storage.ObjectHandle, fence, largest locks.Fence) {
	t.Helper()
	var e *locks.StaleError
	resource := bucket + "/" + obj.ObjectName()
	if !errors.As(err, &e) || !errors.Is(err, locks.ErrStale) || e.Resource != resource || e.Fence != fence || e.Largest != largest {
		t.Fatalf("got %v (%+v), want stale of %s, fence %v, largest %v", err, e, resource, fence, largest)
	}
}

// An equal or larger fence is uploaded with your attributes, a smaller
// one is stale with the largest and writes nothing, across epochs too.
func TestEqualAndLargerAreUploadedAndSmallerIsStaleWritingNothing(t *testing.T) {
	ctx := context.Background()
	obj := object(t)
	seven, nine := locks.Fence{Count: 7}, locks.Fence{Count: 9}
	for i, f := range []locks.Fence{seven, seven, nine} {
		body := fmt.Sprintf("by %v (%d)", f, i)
		attrs, err := gcsguard.Upload(ctx, obj, []byte(body), f, gcsguard.ContentType("text/plain"),
			gcsguard.Metadata(map[string]string{"owner": "me"}))
		if err != nil {
			t.Fatalf("upload %d: %v", i, err)
		}
		if attrs == nil || attrs.Generation == 0 || attrs.Metadata[gcsguard.MetadataKey] != digits(f) {
			t.Fatalf("upload %d answered %+v", i, attrs)
		}
	}
	has(t, obj, "by 9 (2)", nine)
	got, err := obj.Attrs(ctx)
	if err != nil || got.ContentType != "text/plain" || got.Metadata["owner"] != "me" {
		t.Fatalf("attributes %+v (%v), want text/plain and owner=me", got, err)
	}
	_, err = gcsguard.Upload(ctx, obj, []byte("late"), locks.Fence{Count: 8})
	stale(t, err, obj, locks.Fence{Count: 8}, nine)
	has(t, obj, "by 9 (2)", nine)
	epoch := locks.Fence{Epoch: 1}
	if _, err := gcsguard.Upload(ctx, obj, []byte("epoch 1"), epoch, gcsguard.Attrs(storage.ObjectAttrs{CacheControl: "no-cache"})); err != nil {
		t.Fatal(err)
	}
	_, err = gcsguard.Upload(ctx, obj, []byte("late"), locks.Fence{Count: 1 << 62})
	stale(t, err, obj, locks.Fence{Count: 1 << 62}, epoch)
	has(t, obj, "epoch 1", epoch)
}

// An object written without the guard has no fence: the guard takes it
// over, and the rule holds from then on.
func TestAnObjectWrittenWithoutTheGuardIsTakenOver(t *testing.T) {
	ctx := context.Background()
	obj := object(t)
	plain(t, obj, "plain", map[string]string{"owner": "someone"})
	if _, err := gcsguard.Upload(ctx, obj, []byte("guarded"), locks.Fence{Count: 3}); err != nil {
		t.Fatal(err)
	}
	has(t, obj, "guarded", locks.Fence{Count: 3})
	_, err := gcsguard.Upload(ctx, obj, []byte("late"), locks.Fence{Count: 2})
	stale(t, err, obj, locks.Fence{Count: 2}, locks.Fence{Count: 3})
}

// A fence edited by hand is corrupt, naming the key and the resource,
// and nothing is written.
func TestAHandEditedFenceIsCorruptAndWritesNothing(t *testing.T) {
	obj := object(t)
	plain(t, obj, "edited", map[string]string{gcsguard.MetadataKey: "seven"})
	_, err := gcsguard.Upload(context.Background(), obj, []byte("v"), locks.Fence{Count: 7})
	var e *locks.Error
	if !errors.Is(err, locks.ErrCorrupt) || !errors.As(err, &e) || !strings.Contains(err.Error(), gcsguard.MetadataKey) ||
		!strings.Contains(err.Error(), obj.ObjectName()) {
		t.Fatalf("got %v, want corrupt naming the key and the object", err)
	}
	if body, fence, _ := content(t, obj); body != "edited" || fence != "seven" {
		t.Fatalf("the object holds %q, %q", body, fence)
	}
}

// Your metadata under the guard's own key, a nil handle and empty names
// are invalid, and nothing is called.
func TestTheGuardsOwnKeyAndBadNamesAreInvalidBeforeAnyCall(t *testing.T) {
	ctx := context.Background()
	obj := object(t)
	for _, key := range []string{"tinystore-fence", "Tinystore_Fence", "TINYSTORE-DELETED"} {
		_, err := gcsguard.Upload(ctx, obj, []byte("v"), locks.Fence{Count: 1}, gcsguard.Metadata(map[string]string{key: "1"}))
		if !errors.Is(err, locks.ErrInvalid) || !strings.Contains(err.Error(), key) {
			t.Fatalf("metadata %q: got %v, want invalid naming it", key, err)
		}
	}
	if _, _, ok := content(t, obj); ok {
		t.Fatal("an invalid upload wrote the object")
	}
	c := client(t)
	for _, h := range []*storage.ObjectHandle{nil, c.Bucket(bucket).Object(""), c.Bucket("").Object("x")} {
		if _, err := gcsguard.Upload(ctx, h, []byte("v"), locks.Fence{Count: 1}); !errors.Is(err, locks.ErrInvalid) {
			t.Fatalf("%v: got %v, want invalid", h, err)
		}
	}
	// A name the core refuses as a resource (a NUL byte).
	if _, err := gcsguard.Upload(ctx, c.Bucket(bucket).Object("a\x00b"), []byte("v"), locks.Fence{Count: 1}); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("a NUL in the name: got %v, want invalid", err)
	}
}

// racing is a transport whose first upload request lets another writer
// in first: a real second writer, through a client of its own.
type racing struct {
	once    sync.Once
	between func()
}

func (r *racing) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/upload/") {
		r.once.Do(r.between)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// A writer between the guard's read and its upload fails the upload's
// condition: the guard reads again and decides again, on an object that
// did not exist and on one that did.
func TestAWriterBetweenTheReadAndTheUploadIsSeenOnTheSecondRead(t *testing.T) {
	ctx := context.Background()
	for _, first := range []*locks.Fence{nil, {Count: 5}} {
		obj := object(t)
		if first != nil {
			if _, err := gcsguard.Upload(ctx, obj, []byte("first"), *first); err != nil {
				t.Fatal(err)
			}
		}
		in := func(between locks.Fence) *storage.ObjectHandle {
			r := &racing{between: func() {
				if _, err := gcsguard.Upload(ctx, obj, []byte("between"), between); err != nil {
					t.Errorf("the writer between: %v", err)
				}
			}}
			return client(t, option.WithHTTPClient(&http.Client{Transport: r})).Bucket(bucket).Object(obj.ObjectName())
		}
		_, err := gcsguard.Upload(ctx, in(locks.Fence{Count: 9}), []byte("late"), locks.Fence{Count: 7})
		stale(t, err, obj, locks.Fence{Count: 7}, locks.Fence{Count: 9})
		has(t, obj, "between", locks.Fence{Count: 9})
		if _, err := gcsguard.Upload(ctx, in(locks.Fence{Count: 10}), []byte("after"), locks.Fence{Count: 11}); err != nil {
			t.Fatal(err)
		}
		has(t, obj, "after", locks.Fence{Count: 11})
	}
}

// A server that cannot be reached is unavailable, naming the resource and
// wrapping the client's error.
func TestTheServerGoneIsUnavailable(t *testing.T) {
	emulator(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := client(t, option.WithEndpoint("http://"+addr+"/storage/v1/"))
	obj := c.Bucket(bucket).Object("gone").Retryer(storage.WithPolicy(storage.RetryNever))
	_, err = gcsguard.Upload(context.Background(), obj, []byte("v"), locks.Fence{Count: 1})
	var op *url.Error
	if !errors.Is(err, locks.ErrUnavailable) || !strings.Contains(err.Error(), "tinystore/gone") || !errors.As(err, &op) {
		t.Fatalf("got %v, want unavailable naming the object, wrapping the client's error", err)
	}
}
