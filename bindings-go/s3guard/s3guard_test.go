package s3guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
)

var buckets atomic.Int64

// endpoint is moto's server (tests/guards/with-s3.sh); the tests skip
// without it unless TINYSTORE_REQUIRE_S3 is set, as `make test-go` does.
func endpoint(t *testing.T) string {
	t.Helper()
	url := os.Getenv("TINYSTORE_S3_URL")
	if url == "" {
		if os.Getenv("TINYSTORE_REQUIRE_S3") != "" {
			t.Fatal("TINYSTORE_REQUIRE_S3 is set but TINYSTORE_S3_URL is not: run under tests/guards/with-s3.sh")
		}
		t.Skip("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
	}
	return url
}

func clientAt(url string) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(url)
		o.UsePathStyle = true
	})
}

// bucket makes a bucket of the test's own on moto and a client for it.
func bucket(t *testing.T) (*s3.Client, string) {
	t.Helper()
	client := clientAt(endpoint(t))
	name := fmt.Sprintf("go-guard-%d-%d", os.Getpid(), buckets.Add(1))
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	return client, name
}

// plainPut writes an object without the guard; fence nil: no fence metadata.
func plainPut(t *testing.T, client *s3.Client, bucket, key, body string, fence *string) {
	t.Helper()
	metadata := map[string]string{}
	if fence != nil {
		metadata[s3guard.MetadataKey] = *fence
	}
	_, err := client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body), Metadata: metadata,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// object is an object's body and metadata as stored.
type object struct {
	body     string
	metadata map[string]string
}

func get(t *testing.T, client *s3.Client, bucket, key string) *object {
	t.Helper()
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if status(err) == 404 {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Body.Close() }()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &object{string(body), out.Metadata}
}

func status(err error) int {
	var answered interface{ HTTPStatusCode() int }
	if errors.As(err, &answered) {
		return answered.HTTPStatusCode()
	}
	return 0
}

func fence(t *testing.T, decimal string) locks.Fence {
	t.Helper()
	f, err := locks.ParseFence(decimal)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// objectCase is one case of vectors/behaviour.json's "object_guard".
type objectCase struct {
	ID          string          `json:"id"`
	Key         string          `json:"key"`
	Stored      json.RawMessage `json:"stored"`
	StoredBody  *string         `json:"stored_body"`
	Fence       string          `json:"fence"`
	Expect      string          `json:"expect"`
	StoredAfter string          `json:"stored_after"`
	Largest     string          `json:"largest"`
	MessageHas  string          `json:"message_has"`
}

func objectCases(t *testing.T) []objectCase {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/behaviour.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		ObjectGuard struct {
			Cases []objectCase `json:"cases"`
		} `json:"object_guard"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.ObjectGuard.Cases) == 0 {
		t.Fatal("vectors/behaviour.json has no object_guard cases")
	}
	return vectors.ObjectGuard.Cases
}

// Every object_guard vector against moto's server, each in its own bucket.
func TestEveryObjectGuardVector(t *testing.T) {
	for _, c := range objectCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			client, b := bucket(t)
			key := c.Key
			if key == "" {
				key = "chats/42.json"
			}
			if c.Stored != nil {
				var stored *string
				if err := json.Unmarshal(c.Stored, &stored); err != nil {
					t.Fatal(err)
				}
				body := "old"
				if c.StoredBody != nil {
					body = *c.StoredBody
				}
				plainPut(t, client, b, key, body, stored)
			}
			before := get(t, client, b, key)
			_, err := s3guard.Put(context.Background(), client, b, key, []byte("new"), fence(t, c.Fence))
			after := get(t, client, b, key)
			if c.Expect == "written" {
				if err != nil {
					t.Fatal(err)
				}
				if after == nil || after.body != "new" || after.metadata[s3guard.MetadataKey] != c.StoredAfter {
					t.Fatalf("stored %+v, want body new and fence %s", after, c.StoredAfter)
				}
				return
			}
			var e *locks.Error
			if !errors.As(err, &e) || string(e.Code) != c.Expect {
				t.Fatalf("got %v, want %s", err, c.Expect)
			}
			if !strings.Contains(e.Message, c.MessageHas) {
				t.Fatalf("%q does not name %q", e.Message, c.MessageHas)
			}
			if c.Expect == "stale" {
				var stale *locks.StaleError
				if !errors.As(err, &stale) || stale.Resource != b+"/"+key ||
					stale.Fence != fence(t, c.Fence) || stale.Largest != fence(t, c.Largest) {
					t.Fatalf("stale %+v", stale)
				}
			}
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Fatalf("the object changed: %+v, then %+v", before, after)
			}
		})
	}
}

// racing is a client whose HEADs are followed by another writer's plain
// put (a real second writer on the same server) while write says so.
type racing struct {
	*s3.Client
	t      *testing.T
	heads  int
	writes func(n int) (body string, fence *string, ok bool)
	bucket string
}

func (r *racing) HeadObject(ctx context.Context, in *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	out, err := r.Client.HeadObject(ctx, in, optFns...)
	r.heads++
	if body, fence, ok := r.writes(r.heads); ok {
		plainPut(r.t, r.Client, r.bucket, aws.ToString(in.Key), body, fence)
	}
	return out, err
}

func text(s string) *string { return &s }

// A put that loses its race to a writer in between reads again and
// decides again: over a smaller fence it writes, over a larger one it is
// stale; with no object at first, If-None-Match loses the same way.
func TestAPutThatLosesARaceDecidesAgain(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		initial bool
		fence   string
		expect  string
	}{
		{"smaller-in-between", true, "0000000000000000000000000000000000000003", "written"},
		{"larger-in-between", true, "0000000000000000000000000000000000000009", "stale"},
		{"created-in-between", false, "0000000000000000000000000000000000000003", "written"},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, b := bucket(t)
			if c.initial {
				plainPut(t, client, b, "k", "first", text("0000000000000000000000000000000000000002"))
			}
			r := &racing{Client: client, t: t, bucket: b, writes: func(n int) (string, *string, bool) {
				return "other", text(c.fence), n == 1
			}}
			_, err := s3guard.Put(ctx, r, b, "k", []byte("mine"), locks.Fence{Count: 5})
			if r.heads != 2 {
				t.Fatalf("%d HEADs, want 2 (read, lose, read again)", r.heads)
			}
			got := get(t, client, b, "k")
			switch c.expect {
			case "written":
				if err != nil || got.body != "mine" || got.metadata[s3guard.MetadataKey] != fmt.Sprintf("%040d", 5) {
					t.Fatalf("%v; stored %+v", err, got)
				}
			case "stale":
				var stale *locks.StaleError
				if !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: 9}) || got.body != "other" {
					t.Fatalf("%v; stored %+v", err, got)
				}
			}
		})
	}
}

// A writer in between on every try: MaxTries reads, then limit, and the
// other writer's object stands.
func TestEndlessRacesEndInLimit(t *testing.T) {
	client, b := bucket(t)
	r := &racing{Client: client, t: t, bucket: b, writes: func(n int) (string, *string, bool) {
		return fmt.Sprintf("other %d", n), nil, true
	}}
	_, err := s3guard.Put(context.Background(), r, b, "k", []byte("mine"), locks.Fence{Count: 5})
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeLimit || !strings.Contains(e.Message, b+"/k") {
		t.Fatalf("got %v, want limit naming the object", err)
	}
	if r.heads != s3guard.MaxTries || s3guard.MaxTries < 2 {
		t.Fatalf("%d HEADs, want %d", r.heads, s3guard.MaxTries)
	}
	if got := get(t, client, b, "k"); got.body != fmt.Sprintf("other %d", s3guard.MaxTries) {
		t.Fatalf("stored %+v", got)
	}
}

// A guarded delete leaves a tombstone that keeps the fence: a late holder
// can neither bring the object back nor delete it again.
func TestDeleteLeavesATombstoneThatKeepsTheFence(t *testing.T) {
	ctx := context.Background()
	client, b := bucket(t)
	if _, err := s3guard.Put(ctx, client, b, "k", []byte("v1"), locks.Fence{Count: 5}, s3guard.Metadata(map[string]string{"owner": "go"}), s3guard.ContentType("text/plain")); err != nil {
		t.Fatal(err)
	}
	if got := get(t, client, b, "k"); got.metadata["owner"] != "go" {
		t.Fatalf("the caller's metadata was lost: %+v", got)
	}
	if _, err := s3guard.Delete(ctx, client, b, "k", locks.Fence{Count: 6}); err != nil {
		t.Fatal(err)
	}
	got := get(t, client, b, "k")
	if got.body != "" || got.metadata[s3guard.TombstoneKey] != "true" || got.metadata[s3guard.MetadataKey] != fmt.Sprintf("%040d", 6) {
		t.Fatalf("tombstone %+v", got)
	}
	for _, late := range []func() error{
		func() error {
			_, err := s3guard.Put(ctx, client, b, "k", []byte("v2"), locks.Fence{Count: 5})
			return err
		},
		func() error { _, err := s3guard.Delete(ctx, client, b, "k", locks.Fence{Count: 5}); return err },
	} {
		if err := late(); !errors.Is(err, locks.ErrStale) {
			t.Fatalf("a late holder got %v, want stale", err)
		}
	}
	if _, err := s3guard.Put(ctx, client, b, "k", []byte("v3"), locks.Fence{Count: 7}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, client, b, "k"); got.body != "v3" || got.metadata[s3guard.TombstoneKey] != "" {
		t.Fatalf("stored %+v", got)
	}
}

// A HEAD answered 403 (a real 403 from a proxy in front of moto, read by
// the real SDK) is unauthorized naming the object, and nothing is sent.
func TestAForbiddenHeadIsUnauthorizedAndWritesNothing(t *testing.T) {
	_, b := bucket(t)
	target, err := url.Parse(endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	var puts atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodHead:
			w.WriteHeader(http.StatusForbidden)
		case http.MethodPut:
			puts.Add(1)
			proxy.ServeHTTP(w, r)
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	defer server.Close()
	client := clientAt(server.URL)
	_, err = s3guard.Put(context.Background(), client, b, "k", []byte("x"), locks.Fence{Count: 1})
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeUnauthorized ||
		!strings.Contains(e.Message, b+"/k") || !strings.Contains(e.Message, "metadata") {
		t.Fatalf("got %v, want unauthorized naming the object and the metadata", err)
	}
	if puts.Load() != 0 {
		t.Fatalf("%d PUTs were sent", puts.Load())
	}
}

// Any other failure of the client is io, and keeps the SDK's error.
func TestAnUnreachableStoreIsIO(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	client := clientAt(url)
	client = s3.New(client.Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	_, err := s3guard.Put(context.Background(), client, "b", "k", []byte("x"), locks.Fence{Count: 1})
	if !errors.Is(err, locks.ErrIO) || !strings.Contains(err.Error(), "b/k") {
		t.Fatalf("got %v, want io naming the object", err)
	}
}

// Arguments the guard cannot write are invalid, naming what is wrong,
// and nothing is sent.
func TestBadArgumentsAreInvalidAndWriteNothing(t *testing.T) {
	client, b := bucket(t)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"nil S3 client": func() error {
			_, err := s3guard.Put(ctx, nil, b, "k", []byte("x"), locks.Fence{Count: 1})
			return err
		},
		"key \"\"": func() error {
			_, err := s3guard.Put(ctx, client, b, "", []byte("x"), locks.Fence{Count: 1})
			return err
		},
		"\"Tinystore-Fence\"": func() error {
			_, err := s3guard.Put(ctx, client, b, "k", []byte("x"), locks.Fence{Count: 1},
				s3guard.Metadata(map[string]string{"Tinystore-Fence": "9"}))
			return err
		},
		"\"tinystore-deleted\"": func() error {
			_, err := s3guard.Delete(ctx, client, b, "k", locks.Fence{Count: 1},
				s3guard.Metadata(map[string]string{"tinystore-deleted": "false"}))
			return err
		},
	} {
		err := call()
		var e *locks.Error
		if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !strings.Contains(e.Message, name) {
			t.Errorf("%s: got %v, want invalid naming it", name, err)
		}
	}
	if got := get(t, client, b, "k"); got != nil {
		t.Fatalf("something was written: %+v", got)
	}
}
