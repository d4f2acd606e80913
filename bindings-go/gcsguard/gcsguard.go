// Package gcsguard is the fence's guard on Google Cloud Storage, on the
// cloud.google.com/go/storage client the caller already made: an upload
// that a late lock holder cannot land over a later holder's.
//
//	obj := client.Bucket("chats").Object("42")
//	attrs, err := gcsguard.Upload(ctx, obj, summary, lease.Fence, gcsguard.ContentType("text/plain"))
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote: nothing was written
//
// The fence lives in the object's own metadata (MetadataKey,
// "tinystore-fence", 40 digits). A guarded upload reads the object's
// generation and fence (ObjectHandle.Attrs), refuses with a
// *tinystore.StaleError when the fence is larger, and otherwise uploads
// your data and attributes with its own fence on the condition that the
// object is still that generation (Conditions{GenerationMatch: gen}), or
// still absent (Conditions{DoesNotExist: true}). A failed condition (412)
// means another writer came in between: it reads again and decides again,
// at most five uploads in all. An object written without the guard has no
// fence and is taken over. The resource is "BUCKET/NAME".
//
// Each upload is one request (the Writer's ChunkSize is one more than the
// data's length: a multipart upload, not a resumable one, that the client
// buffers and may make again), so the condition covers the whole object.
// A delete cannot be guarded: it takes the fence with the object
// (docs/guards.md says what to do instead).
//
// The protocol is tinystore's core's (its VersionedCheck machine, the same
// in every language): this package makes each read and upload on the
// caller's handle and reports what the server answered. It lives in its
// own module, tinystore.dev/go/gcsguard, so that tinystore.dev/go itself
// needs nothing but the standard library.
//
// Errors: a *tinystore.StaleError (Resource, Fence, Largest) when a larger
// fence is recorded; corrupt, naming the resource and the metadata key,
// when the fence is not 40 digits (a hand edit); limit after five uploads
// lost to other writers in a row; invalid, before any call, for a nil
// handle, an empty bucket or object name, or your metadata under the
// guard's own key. An error of the client is returned as an error of the
// code the core classifies it as (unavailable for a server that cannot be
// reached or a 5xx; unauthorized for 401 and 403; io otherwise) that wraps
// the client's: errors.As still reaches *googleapi.Error. The client
// retries a failed request as its retry policy says (ObjectHandle.Retryer,
// Client.SetRetry); the guard's tries are on top. The upload's errors are
// judged by storage.ShouldRetry (a storage.WithErrorFunc of your own is
// not used for it), which the guard watches: when an attempt got no
// answer (a lost connection, a timeout), a 5xx or a 408 and was made
// again, that attempt may have been written, so a larger fence found
// after it is unavailable ("may have been written"), not stale, and is
// not told to the lease's store.
package gcsguard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// MetadataKey is the metadata key that holds the fence.
const MetadataKey = "tinystore-fence"

// An Option sets what the upload writes beside the data.
type Option func(*storage.ObjectAttrs)

// ContentType sets the object's content type.
func ContentType(contentType string) Option {
	return func(a *storage.ObjectAttrs) { a.ContentType = contentType }
}

// Metadata sets the object's own metadata, which the fence joins; a key
// that is the guard's (in any case or spelling) is invalid.
func Metadata(metadata map[string]string) Option {
	return func(a *storage.ObjectAttrs) { a.Metadata = maps.Clone(metadata) }
}

// Attrs sets what a storage.Writer takes of attrs: the content type and
// encoding, cache control, your metadata and the rest. Its Bucket and Name
// are the handle's; an option after it changes it.
func Attrs(attrs storage.ObjectAttrs) Option {
	return func(a *storage.ObjectAttrs) {
		*a = attrs
		a.Metadata = maps.Clone(attrs.Metadata)
	}
}

// Upload writes data to obj with the attributes opts set, guarded by
// fence, and gives the object's attributes as written. obj is a handle of
// the caller's client with no conditions of its own (the guard sets them)
// and no generation. under is the lease's Fence or the *locks.Lease
// itself: given the lease, a stale refusal is also told to its store
// (locks.Fenced).
func Upload(ctx context.Context, obj *storage.ObjectHandle, data []byte, under locks.Fenced, opts ...Option) (*storage.ObjectAttrs, error) {
	if obj == nil || obj.BucketName() == "" || obj.ObjectName() == "" {
		bucket, name := "", ""
		if obj != nil {
			bucket, name = obj.BucketName(), obj.ObjectName()
		}
		return nil, &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf(
			"a guarded upload names bucket %q and object %q: both must be given; nothing was written", bucket, name)}
	}
	var attrs storage.ObjectAttrs
	for _, opt := range opts {
		opt(&attrs)
	}
	resource := obj.BucketName() + "/" + obj.ObjectName()
	if err := native.VersionedCheckMetadata(native.StoreGCS, resource, keys(attrs.Metadata)); err != nil {
		return nil, err
	}
	var written *storage.ObjectAttrs
	err := guardio.Checked(ctx, "gcsguard.Upload", under, resource, "gcs", func(fence locks.Fence) error {
		return upload(ctx, obj, data, attrs, resource, fence, &written)
	})
	if err != nil {
		return nil, err
	}
	return written, nil
}

func upload(ctx context.Context, obj *storage.ObjectHandle, data []byte, attrs storage.ObjectAttrs, resource string, fence locks.Fence, written **storage.ObjectAttrs) error {
	m, step, err := native.NewVersioned(native.StoreGCS, resource, fence.Epoch, fence.Count)
	if err != nil {
		return err
	}
	defer m.Free()
	return guardio.Run(m, step, func(step native.Step) (native.Observed, error) {
		switch step.Kind {
		case native.StepReadObject:
			return read(ctx, obj, step.Text)
		case native.StepPutVersioned:
			var attempts guardio.Attempts
			observed, got, err := put(ctx, obj, data, attrs, step, &attempts)
			if got != nil {
				*written = got
			}
			if err := attempts.Tell(m.VersionedAttempted); err != nil {
				return native.Observed{}, err
			}
			return observed, err
		}
		return native.Observed{}, nil // a step of no versioned machine: the machine says so
	})
}

func keys(metadata map[string]string) []string {
	out := make([]string, 0, len(metadata))
	for k := range metadata {
		out = append(out, k)
	}
	return out
}

// read is the object's generation and its fence under key.
func read(ctx context.Context, obj *storage.ObjectHandle, key string) (native.Observed, error) {
	attrs, err := obj.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return native.Observed{Kind: native.ObservedAbsent}, nil
	}
	if err != nil {
		return guardio.Failed(err)
	}
	observed := native.Observed{Kind: native.ObservedFound, Version: strconv.FormatInt(attrs.Generation, 10)}
	for k, v := range attrs.Metadata {
		if strings.EqualFold(k, key) {
			observed.Recorded = &v
			break
		}
	}
	return observed, nil
}

// put uploads data with attrs and the fence on the step's condition, in
// one request, and notes in attempts the answer of each attempt of it
// that was made again (watched).
func put(ctx context.Context, obj *storage.ObjectHandle, data []byte, attrs storage.ObjectAttrs, step native.Step, attempts *guardio.Attempts) (native.Observed, *storage.ObjectAttrs, error) {
	if len(step.Params) == 0 || len(step.Params) > 2 {
		return native.Observed{}, nil, nil // not the machine's put: it says so
	}
	conditions := storage.Conditions{DoesNotExist: true}
	if len(step.Params) == 2 {
		generation, err := strconv.ParseInt(step.Params[1], 10, 64)
		if err != nil {
			generation = -1 // read from an int64: never; it matches nothing
		}
		conditions = storage.Conditions{GenerationMatch: generation}
	}
	w := obj.Retryer(storage.WithErrorFunc(watched(attempts))).If(conditions).NewWriter(ctx)
	w.ObjectAttrs = attrs
	w.Bucket, w.Name = obj.BucketName(), obj.ObjectName()
	w.Metadata = maps.Clone(attrs.Metadata)
	if w.Metadata == nil {
		w.Metadata = map[string]string{}
	}
	w.Metadata[step.Text] = step.Params[0]
	// One chunk larger than the data: one request, which the client
	// buffers and so may make again (with ChunkSize 0 it would not).
	w.ChunkSize = len(data) + 1
	_, err := w.Write(data)
	if closed := w.Close(); err == nil || closed != nil {
		err = closed
	}
	var answer *googleapi.Error
	switch {
	case err == nil:
		return native.Observed{Kind: native.ObservedWritten}, w.Attrs(), nil
	case errors.As(err, &answer) && answer.Code == http.StatusPreconditionFailed:
		return native.Observed{Kind: native.ObservedConditionFailed}, nil, nil
	}
	observed, err := guardio.Failed(err)
	return observed, nil, err
}

// watched is the client's own retry predicate (storage.ShouldRetry), which
// also notes in attempts the status of each attempt it makes again (0 for
// no answer: a lost connection, a timeout); core decides which of them may
// have been written.
func watched(attempts *guardio.Attempts) func(error) bool {
	return func(err error) bool {
		retry := storage.ShouldRetry(err)
		if retry {
			attempts.Add(statusOf(err))
		}
		return retry
	}
}

// statusOf is the HTTP status of an attempt's error: googleapi's code; a
// gRPC ResourceExhausted as the 429 it stands for; 0 (no answer) for any
// other error.
func statusOf(err error) int {
	var answer *googleapi.Error
	if errors.As(err, &answer) {
		return answer.Code
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.ResourceExhausted {
		return http.StatusTooManyRequests
	}
	return 0
}
