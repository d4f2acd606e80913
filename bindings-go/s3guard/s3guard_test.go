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
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
)

var buckets atomic.Int64

const fencesDir = "/tinystore-fence/"

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

// plainPut writes an object without the guard.
func plainPut(t *testing.T, client *s3.Client, bucket, key, body string) {
	t.Helper()
	_, err := client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body),
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plainBody is the body of the object at key, read without the guard;
// "" with ok false when there is none.
func plainBody(t *testing.T, client *s3.Client, bucket, key string) (body string, ok bool) {
	t.Helper()
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchKey" {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Body.Close() }()
	raw, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw), true
}

// listed is the rests of the keys under key's fences' folder, sorted.
func listed(t *testing.T, client *s3.Client, bucket, key string) []string {
	t.Helper()
	out, err := client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String(key + fencesDir),
	})
	if err != nil {
		t.Fatal(err)
	}
	rests := []string{}
	for _, o := range out.Contents {
		rests = append(rests, strings.TrimPrefix(aws.ToString(o.Key), key+fencesDir))
	}
	slices.Sort(rests)
	return rests
}

// read is the guarded read of key: its body and fence, "none" when there
// is no object.
func read(t *testing.T, client s3guard.Client, bucket, key string) (body, fence string) {
	t.Helper()
	obj, err := s3guard.Get(context.Background(), client, bucket, key)
	if err != nil {
		t.Fatal(err)
	}
	if obj == nil {
		return "", "none"
	}
	return string(obj.Body), obj.Fence.String()
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
	ID          string   `json:"id"`
	Key         string   `json:"key"`
	Stored      *string  `json:"stored"`
	Plain       bool     `json:"plain"`
	Body        *string  `json:"body"`
	Fence       string   `json:"fence"`
	Expect      string   `json:"expect"`
	ReadAfter   string   `json:"read_after"`
	ListedAfter []string `json:"listed_after"`
	Largest     string   `json:"largest"`
	MessageHas  string   `json:"message_has"`
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
	if len(vectors.ObjectGuard.Cases) < 8 {
		t.Fatalf("%d object_guard cases: the vectors have lost cases", len(vectors.ObjectGuard.Cases))
	}
	return vectors.ObjectGuard.Cases
}

// Every object_guard vector against moto's server, each in its own
// bucket: what the guarded read gives and what is listed after a write;
// nothing changed after a refusal.
func TestEveryObjectGuardVector(t *testing.T) {
	for _, c := range objectCases(t) {
		t.Run(c.ID, func(t *testing.T) {
			client, b := bucket(t)
			key := c.Key
			if key == "" {
				key = "chats/42.json"
			}
			if c.Stored != nil {
				plainPut(t, client, b, key+fencesDir+*c.Stored, "old")
			}
			if c.Plain {
				plainPut(t, client, b, key, "plain")
			}
			before := listed(t, client, b, key)
			body := "new"
			if c.Body != nil {
				body = *c.Body
			}
			_, err := s3guard.Put(context.Background(), client, b, key, []byte(body), fence(t, c.Fence))
			if plain, ok := plainBody(t, client, b, key); c.Plain && (!ok || plain != "plain") {
				t.Fatalf("the plain object at the key became %q (%v)", plain, ok)
			}
			if c.Expect == "written" {
				if err != nil {
					t.Fatal(err)
				}
				got, f := read(t, client, b, key)
				if got != body || f != c.ReadAfter || !slices.Equal(listed(t, client, b, key), c.ListedAfter) {
					t.Fatalf("read %q with fence %s, listed %v; want %q, %s, %v", got, f, listed(t, client, b, key), body, c.ReadAfter, c.ListedAfter)
				}
				return
			}
			var e *locks.Error
			if !errors.As(err, &e) || string(e.Code) != c.Expect || !errors.Is(err, locks.Code(c.Expect)) {
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
			if after := listed(t, client, b, key); !slices.Equal(before, after) {
				t.Fatalf("the listing changed: %v, then %v", before, after)
			}
		})
	}
}

// racing is a client on which another, real writer writes (through the
// guard, on the plain client) after the guard's n-th listing (afterList)
// or before its n-th get (beforeGet).
type racing struct {
	*s3.Client
	t           *testing.T
	bucket      string
	lists, gets int
	afterList   func(n int)
	beforeGet   func(n int)
}

func (r *racing) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	out, err := r.Client.ListObjectsV2(ctx, in, optFns...)
	r.lists++
	if r.afterList != nil {
		r.afterList(r.lists)
	}
	return out, err
}

func (r *racing) GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	r.gets++
	if r.beforeGet != nil {
		r.beforeGet(r.gets)
	}
	return r.Client.GetObject(ctx, in, optFns...)
}

func (r *racing) put(body string, f uint64) {
	r.t.Helper()
	if _, err := s3guard.Put(context.Background(), r.Client, r.bucket, "k", []byte(body), locks.Fence{Count: f}); err != nil {
		r.t.Fatal(err)
	}
}

// A put overtaken between its first listing and its put by a real writer
// of a larger fence is stale, and leaves no object of its own; overtaken
// by a smaller one, it is accepted and the smaller one's object deleted.
func TestAPutOvertakenInItsStepsIsDecidedByTheListingAfter(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		other  uint64
		stale  bool
		listed []string
	}{
		{"larger-in-between", 9, true, []string{fmt.Sprintf("%040d", 9)}},
		{"smaller-in-between", 3, false, []string{fmt.Sprintf("%040d", 5)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, b := bucket(t)
			r := &racing{Client: client, t: t, bucket: b}
			r.afterList = func(n int) {
				if n == 1 {
					r.put("other", c.other)
				}
			}
			_, err := s3guard.Put(ctx, r, b, "k", []byte("mine"), locks.Fence{Count: 5})
			var stale *locks.StaleError
			if c.stale != errors.As(err, &stale) || (!c.stale && err != nil) {
				t.Fatalf("got %v; stale %v", err, c.stale)
			}
			if c.stale && stale.Largest != (locks.Fence{Count: c.other}) {
				t.Fatalf("stale %+v", stale)
			}
			if got := listed(t, client, b, "k"); !slices.Equal(got, c.listed) {
				t.Fatalf("listed %v, want %v", got, c.listed)
			}
			if r.lists != 2 {
				t.Fatalf("%d listings, want 2 (before and after the put)", r.lists)
			}
		})
	}
}

// A read whose listed object a later writer deletes before the get lists
// again and reads the later one; a later writer in between every time
// ends in limit after MaxTries listings.
func TestAReadThatFindsItsObjectGoneListsAgainBounded(t *testing.T) {
	client, b := bucket(t)
	r := &racing{Client: client, t: t, bucket: b}
	r.put("first", 5)
	r.beforeGet = func(n int) {
		if n == 1 {
			r.put("second", 6)
		}
	}
	if body, f := read(t, r, b, "k"); body != "second" || f != "6" || r.lists != 2 {
		t.Fatalf("read %q with fence %s after %d listings", body, f, r.lists)
	}
	r.lists, r.gets = 0, 0
	r.beforeGet = func(n int) { r.put(fmt.Sprintf("writer %d", n), uint64(10+n)) }
	_, err := s3guard.Get(context.Background(), r, b, "k")
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeLimit || !strings.Contains(e.Message, b+"/k") {
		t.Fatalf("got %v, want limit naming the object", err)
	}
	if r.lists != s3guard.MaxTries || s3guard.MaxTries < 2 {
		t.Fatalf("%d listings, want %d", r.lists, s3guard.MaxTries)
	}
}

// A guarded delete leaves a tombstone that keeps the fence: a read sees
// no object, a late holder can neither bring the object back nor delete
// it, deleting again is fine, and a later put is read with the caller's
// metadata.
func TestDeleteLeavesATombstoneThatKeepsTheFence(t *testing.T) {
	ctx := context.Background()
	client, b := bucket(t)
	if _, err := s3guard.Put(ctx, client, b, "k", []byte("v1"), locks.Fence{Count: 5}, s3guard.Metadata(map[string]string{"owner": "go"}), s3guard.ContentType("text/plain")); err != nil {
		t.Fatal(err)
	}
	obj, err := s3guard.Get(ctx, client, b, "k")
	if err != nil || obj == nil || obj.Metadata["owner"] != "go" || len(obj.Metadata) != 1 {
		t.Fatalf("read %+v, %v; want the caller's metadata alone", obj, err)
	}
	for range 2 {
		if _, err := s3guard.Delete(ctx, client, b, "k", locks.Fence{Count: 6}); err != nil {
			t.Fatal(err)
		}
		if _, f := read(t, client, b, "k"); f != "none" {
			t.Fatalf("a deleted object reads with fence %s", f)
		}
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
	if _, err := s3guard.Put(ctx, client, b, "k", []byte("v1"), locks.Fence{Count: 7}); err != nil {
		t.Fatal(err)
	}
	if body, f := read(t, client, b, "k"); body != "v1" || f != "7" {
		t.Fatalf("read %q with fence %s", body, f)
	}
	if got := listed(t, client, b, "k"); !slices.Equal(got, []string{fmt.Sprintf("%040d", 7)}) {
		t.Fatalf("listed %v", got)
	}
}

// A listing answered 403 (a real 403 from a proxy in front of moto, read
// by the real SDK) is unauthorized naming the object, wraps the SDK's
// error, and nothing is put.
func TestAForbiddenListingIsUnauthorizedAndWritesNothing(t *testing.T) {
	_, b := bucket(t)
	target, err := url.Parse(endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	var puts atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		case r.Method == http.MethodPut:
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
	var api smithy.APIError
	if !errors.As(err, &e) || e.Code != locks.CodeUnauthorized || !strings.Contains(e.Message, b+"/k") ||
		!errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
		t.Fatalf("got %v, want unauthorized naming the object, wrapping the SDK's AccessDenied", err)
	}
	if puts.Load() != 0 {
		t.Fatalf("%d PUTs were sent", puts.Load())
	}
}

// A store that cannot be reached is unavailable, naming the object, and
// keeps the SDK's error.
func TestAnUnreachableStoreIsUnavailable(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	client := clientAt(url)
	client = s3.New(client.Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	_, err := s3guard.Put(context.Background(), client, "b", "k", []byte("x"), locks.Fence{Count: 1})
	var op *smithy.OperationError
	if !errors.Is(err, locks.ErrUnavailable) || !strings.Contains(err.Error(), "b/k") || !errors.As(err, &op) {
		t.Fatalf("got %v, want unavailable naming the object, wrapping the SDK's error", err)
	}
}

// Arguments the guard cannot write are invalid, naming what is wrong,
// and nothing is sent.
func TestBadArgumentsAreInvalidAndWriteNothing(t *testing.T) {
	client, b := bucket(t)
	ctx := context.Background()
	put := func(c s3guard.Client, bucket, key string, opts ...s3guard.Option) func() error {
		return func() error {
			_, err := s3guard.Put(ctx, c, bucket, key, []byte("x"), locks.Fence{Count: 1}, opts...)
			return err
		}
	}
	for name, call := range map[string]func() error{
		"nil S3 client":       put(nil, b, "k"),
		"key \"\"":            put(client, b, ""),
		"\"Tinystore-Fence\"": put(client, b, "k", s3guard.Metadata(map[string]string{"Tinystore-Fence": "9"})),
		"tinystore-deleted":   put(client, b, "k", s3guard.Metadata(map[string]string{"tinystore-deleted": "false"})),
		"not UTF-8":           put(client, b, "chats/\xed\xa0\x80"),
		"bucket":              put(client, "\xff", "k"),
		"tinystore-fence":     put(client, b, "a/tinystore-fence/b"),
		"read: nil S3 client": func() error { _, err := s3guard.Get(ctx, nil, b, "k"); return err },
		"object key":          func() error { _, err := s3guard.Get(ctx, client, b, "k\xff"); return err },
		"delete: key":         func() error { _, err := s3guard.Delete(ctx, client, b, "", locks.Fence{Count: 1}); return err },
	} {
		err := call()
		var e *locks.Error
		about := strings.TrimPrefix(strings.TrimPrefix(name, "read: "), "delete: ")
		if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !strings.Contains(e.Message, about) {
			t.Errorf("%s: got %v, want invalid naming it", name, err)
		}
	}
	out, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(b)})
	if err != nil || len(out.Contents) != 0 {
		t.Fatalf("something was written: %v, %v", out, err)
	}
}
