package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"google.golang.org/api/option"

	"tinystore.dev/go/azureguard"
	"tinystore.dev/go/gcsguard"
	"tinystore.dev/go/locks"
)

// The bucket of with-gcs.sh and the container of with-azurite.sh.
const versionedBucket = "tinystore"

// object is one object of a versioned store through its SDK's client:
// the guarded upload, a plain one, and a read of its body and fence.
type object interface {
	guarded(ctx context.Context, f locks.Fence, body []byte) error
	plain(ctx context.Context, body string, metadata map[string]string) error
	// read is the body and the fence metadata (nil: no object).
	read(ctx context.Context) (body string, fence *string, err error)
}

// opener makes a client of one object name, its requests sent through
// transport (nil: the SDK's own), at endpoint ("": the emulator's).
type opener func(name string, transport http.RoundTripper, endpoint string) (object, error)

// versionedStore is the gcs or azure backend: fake-gcs-server through
// cloud.google.com/go/storage or Azurite through azblob, each scenario
// on an object of its own (named by the cell's resource) in the bucket or
// container "tinystore".
type versionedStore struct {
	open     opener
	gone     func(port string) string // the endpoint of a dead port
	obj      object
	resource string // the cell's resource: the object's name
}

func openGCS(ctx context.Context, resource string) (*versionedStore, error) {
	if os.Getenv("TINYSTORE_GCS_URL") == "" || os.Getenv("STORAGE_EMULATOR_HOST") == "" {
		return nil, errors.New("TINYSTORE_GCS_URL is unset: run under tests/guards/with-gcs.sh")
	}
	open := func(name string, transport http.RoundTripper, endpoint string) (object, error) {
		var opts []option.ClientOption
		if transport != nil {
			opts = append(opts, option.WithHTTPClient(&http.Client{Transport: transport}))
		}
		if endpoint != "" {
			opts = append(opts, option.WithEndpoint(endpoint))
		}
		client, err := storage.NewClient(ctx, opts...)
		if err != nil {
			return nil, err
		}
		obj := client.Bucket(versionedBucket).Object(name)
		if endpoint != "" {
			obj = obj.Retryer(storage.WithPolicy(storage.RetryNever))
		}
		return gcsObject{obj}, nil
	}
	gone := func(address string) string { return "http://" + address + "/storage/v1/" }
	return newVersioned(open, gone, resource)
}

func openAzure(ctx context.Context, resource string) (*versionedStore, error) {
	conn := os.Getenv("TINYSTORE_AZURE_CONNECTION_STRING")
	if conn == "" {
		return nil, errors.New("TINYSTORE_AZURE_CONNECTION_STRING is unset: run under tests/guards/with-azurite.sh")
	}
	open := func(name string, transport http.RoundTripper, endpoint string) (object, error) {
		parts := strings.Split(conn, ";")
		if endpoint != "" {
			for i, p := range parts {
				if strings.HasPrefix(p, "BlobEndpoint=") {
					parts[i] = "BlobEndpoint=" + endpoint
				}
			}
		}
		opts := &blockblob.ClientOptions{}
		opts.Retry = policy.RetryOptions{MaxRetries: -1}
		if transport != nil {
			opts.Transport = &http.Client{Transport: transport}
		}
		client, err := blockblob.NewClientFromConnectionString(strings.Join(parts, ";"), versionedBucket, name, opts)
		if err != nil {
			return nil, err
		}
		return azureObject{client}, nil
	}
	gone := func(address string) string { return "http://" + address + "/devstoreaccount1" }
	return newVersioned(open, gone, resource)
}

func newVersioned(open opener, gone func(string) string, resource string) (*versionedStore, error) {
	obj, err := open(resource, nil, "")
	if err != nil {
		return nil, err
	}
	return &versionedStore{open: open, gone: gone, obj: obj, resource: resource}, nil
}

func (v *versionedStore) close() {}

func (v *versionedStore) staleResource() string { return versionedBucket + "/" + v.resource }

// write is a guarded upload to the cell's object, or to an object named
// resource (bad_resource gives bad ones).
func (v *versionedStore) write(ctx context.Context, f locks.Fence, body *string, resource string) error {
	obj := v.obj
	if resource != v.resource {
		var err error
		if obj, err = v.open(resource, nil, ""); err != nil {
			return fmt.Errorf("making a client of %q: %w", resource, err)
		}
	}
	return obj.guarded(ctx, f, bodyOf(f, body))
}

func (v *versionedStore) recorded(ctx context.Context) (*locks.Fence, string, error) {
	body, text, err := v.obj.read(ctx)
	if err != nil || text == nil {
		return nil, body, err
	}
	f, err := locks.ParseFence(*text)
	if err != nil {
		return nil, body, fmt.Errorf("the object's fence %q: %w", *text, err)
	}
	return &f, body, nil
}

// corrupt writes the object without the guard, its fence metadata not a
// fence.
func (v *versionedStore) corrupt(ctx context.Context) error {
	key := gcsguard.MetadataKey
	if _, ok := v.obj.(azureObject); ok {
		key = azureguard.MetadataKey
	}
	return v.obj.plain(ctx, "edited", map[string]string{key: "not-a-fence"})
}

// unchanged checks that the object reads as it does now.
func (v *versionedStore) unchanged(ctx context.Context) (func() error, error) {
	state := func() (string, error) {
		body, fence, err := v.obj.read(ctx)
		if fence == nil {
			return fmt.Sprintf("%q, no fence", body), err
		}
		return fmt.Sprintf("%q, fence %q", body, *fence), err
	}
	before, err := state()
	if err != nil {
		return nil, err
	}
	return func() error {
		after, err := state()
		if err != nil {
			return err
		}
		if after != before {
			return fmt.Errorf("a refused write changed the object: %s, then %s", before, after)
		}
		return nil
	}, nil
}

// driverError tells the client's own error: unavailable is a request
// that never got an answer (a refused connection).
func (v *versionedStore) driverError(kind string, err error) bool {
	var refused *net.OpError
	var u *url.Error
	_, gcs := v.obj.(gcsObject)
	return kind == "unavailable" && errors.As(err, &refused) && (!gcs || errors.As(err, &u))
}

// racing is a transport whose first upload request lets the writers
// between in first: real writers, through the backend's own client.
type racing struct {
	once    sync.Once
	between func()
	paused  bool
}

func (r *racing) RoundTrip(req *http.Request) (*http.Response, error) {
	// GCS: POST /upload/storage/v1/...; Azure's Put Blob: a PUT of the
	// blob itself (Put Block and Put Block List name their comp=).
	upload := req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/upload/") ||
		req.Method == http.MethodPut && req.URL.Query().Get("comp") == ""
	if upload {
		r.once.Do(func() {
			r.paused = true
			r.between()
		})
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (v *versionedStore) steps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		// The write's upload held back, after its read, while the writers
		// of "between" write from start to end on the backend's client.
		"race": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			var between []args
			if err := json.Unmarshal(a.Between, &between); err != nil {
				return fmt.Errorf("between: %w", err)
			}
			var failed error
			r := &racing{between: func() {
				for _, w := range between {
					g, err := parse(w.Fence)
					if err == nil {
						err = judge(st.expect("expect_between"), v.write(ctx, g, w.Body, v.resource), g)
					}
					if err != nil && failed == nil {
						failed = fmt.Errorf("the writer between, fence %s: %w", w.Fence, err)
					}
				}
			}}
			paused, err := v.open(v.resource, r, "")
			if err != nil {
				return err
			}
			outcome := paused.guarded(ctx, f, bodyOf(f, a.Body))
			if failed != nil {
				return failed
			}
			if !r.paused {
				return errors.New("the write made no upload: it was never paused")
			}
			return judge(st.expect("expect"), outcome, f)
		},
		// A client of the same SDK whose endpoint nothing listens on, with
		// no retries: nothing is written.
		"server_gone": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			dead, err := deadEndpoint()
			if err != nil {
				return err
			}
			gone, err := v.open(v.resource, nil, v.gone(strings.TrimPrefix(dead, "http://")))
			if err != nil {
				return err
			}
			if err := judge(st.expect("expect"), gone.guarded(ctx, f, []byte("v")), f); err != nil {
				return err
			}
			if body, fence, err := v.obj.read(ctx); err != nil || fence != nil || body != "" {
				return fmt.Errorf("after the server was gone it holds %q, %v (%v)", body, fence, err)
			}
			return nil
		},
	}
}

// gcsObject is an object of fake-gcs-server.
type gcsObject struct{ h *storage.ObjectHandle }

func (o gcsObject) guarded(ctx context.Context, f locks.Fence, body []byte) error {
	_, err := gcsguard.Upload(ctx, o.h, body, f)
	return err
}

func (o gcsObject) plain(ctx context.Context, body string, metadata map[string]string) error {
	w := o.h.NewWriter(ctx)
	w.Metadata = metadata
	if _, err := w.Write([]byte(body)); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func (o gcsObject) read(ctx context.Context) (string, *string, error) {
	attrs, err := o.h.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	r, err := o.h.Generation(attrs.Generation).NewReader(ctx)
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return "", nil, err
	}
	var fence *string
	if text, ok := attrs.Metadata[gcsguard.MetadataKey]; ok {
		fence = &text
	}
	return string(data), fence, nil
}

// azureObject is a blob of Azurite.
type azureObject struct{ c *blockblob.Client }

func (o azureObject) guarded(ctx context.Context, f locks.Fence, body []byte) error {
	_, err := azureguard.UploadBuffer(ctx, o.c, body, f, nil)
	return err
}

func (o azureObject) plain(ctx context.Context, body string, metadata map[string]string) error {
	mine := map[string]*string{}
	for k, v := range metadata {
		mine[k] = &v
	}
	_, err := o.c.Upload(ctx, streaming.NopCloser(bytes.NewReader([]byte(body))), &blockblob.UploadOptions{Metadata: mine})
	return err
}

func (o azureObject) read(ctx context.Context) (string, *string, error) {
	got, err := o.c.DownloadStream(ctx, nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	defer got.Body.Close()
	data, err := io.ReadAll(got.Body)
	if err != nil {
		return "", nil, err
	}
	var fence *string
	for k, v := range got.Metadata {
		if strings.EqualFold(k, azureguard.MetadataKey) && v != nil {
			fence = v
		}
	}
	return string(data), fence, nil
}
