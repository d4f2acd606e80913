// Package s3guard is the fence's guard on S3 and S3-compatible object
// storage, on the aws-sdk-go-v2 client the caller already made: a put
// that a late lock holder cannot land over a later holder's write.
//
//	out, err := s3guard.Put(ctx, client, "reports", "chats/42.json", body, lease.Fence)
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote the object
//
// The fence lives in the object's own metadata, tinystore-fence, as 40
// digits. Put reads the object (a HEAD: its ETag and stored fence), asks
// tinystore's core what to do, and writes with the condition it gives:
// If-Match on the ETag it read, or If-None-Match: * when there was no
// object. A stored fence above the put's is a *tinystore.StaleError
// (resource "bucket/key", both fences), nothing written. A 412
// Precondition Failed (or 409 ConditionalRequestConflict) means another
// writer came in between: Put reads and decides again, a bounded number
// of times (the core's MAX_TRIES, 5), then fails with limit. Since S3
// compares ETags and a single-part object's ETag is its body's MD5, a put
// of the object's own body is refused as invalid: it would leave the ETag
// as it is, and a late writer could overwrite it unseen.
//
// Delete is a guarded put of an empty tombstone whose metadata
// tinystore-deleted is "true", so that the fence stays and a late holder
// cannot bring the object back.
//
// The package lives in its own module, tinystore.dev/go/s3guard, so that
// tinystore.dev/go itself needs nothing but the standard library.
package s3guard

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// The metadata keys and the bound on tries, the core's.
var (
	// MetadataKey holds an object's fence as 40 digits ("tinystore-fence";
	// S3 sends it as x-amz-meta-tinystore-fence).
	MetadataKey = guard.ObjectNames().MetadataKey
	// TombstoneKey marks the object a guarded delete leaves
	// ("tinystore-deleted", value "true").
	TombstoneKey = guard.ObjectNames().TombstoneKey
	// MaxTries is how many times Put reads and tries in all.
	MaxTries = guard.ObjectNames().MaxTries
)

// Client is what the guard calls: *s3.Client has both methods.
type Client interface {
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// An Option adds to the guarded put.
type Option func(*settings)

type settings struct {
	metadata    map[string]string
	contentType *string
}

// Metadata adds the caller's own metadata to the object; a key that is
// one of the guard's own (MetadataKey, TombstoneKey, in any case) is
// invalid.
func Metadata(metadata map[string]string) Option {
	return func(s *settings) {
		for k, v := range metadata {
			s.metadata[k] = v
		}
	}
}

// ContentType sets the object's Content-Type.
func ContentType(contentType string) Option {
	return func(s *settings) { s.contentType = aws.String(contentType) }
}

// Put writes body to bucket/key with fence through the guard, and gives
// S3's answer to the write that landed. Errors: a *tinystore.StaleError
// when a larger fence is stored; corrupt when the object's tinystore-fence
// metadata is not 40 digits; invalid for a body equal to the object's, a
// nil client, an empty bucket or key, or metadata naming the guard's own
// keys; unauthorized when the HEAD is refused (the guard must read the
// object's metadata); limit after MaxTries writers in between; any other
// error of the client as an io error that wraps it (errors.As reaches the
// SDK's). Nothing is written on any error.
func Put(ctx context.Context, client Client, bucket, key string, body []byte, fence locks.Fence, opts ...Option) (*s3.PutObjectOutput, error) {
	return put(ctx, client, bucket, key, body, fence, false, opts)
}

// Delete is the guarded delete of bucket/key: a guarded put of an empty
// object whose metadata tinystore-deleted is "true", so that its fence
// stays. Its errors are Put's; deleting a tombstone again is invalid (its
// body would keep the ETag).
func Delete(ctx context.Context, client Client, bucket, key string, fence locks.Fence, opts ...Option) (*s3.PutObjectOutput, error) {
	return put(ctx, client, bucket, key, nil, fence, true, opts)
}

func put(ctx context.Context, client Client, bucket, key string, body []byte, fence locks.Fence, tombstone bool, opts []Option) (*s3.PutObjectOutput, error) {
	resource := bucket + "/" + key
	s := settings{metadata: map[string]string{}}
	for _, opt := range opts {
		opt(&s)
	}
	if err := check(client, bucket, key, s.metadata); err != nil {
		return nil, err
	}
	s.metadata[MetadataKey] = fmt.Sprintf("%040s", fence)
	if tombstone {
		s.metadata[TombstoneKey] = "true"
	}
	sum := md5.Sum(body)
	bodyMD5 := hex.EncodeToString(sum[:])
	for try := 0; try < MaxTries; try++ {
		stored, err := head(ctx, client, bucket, key, resource)
		if err != nil {
			return nil, err
		}
		replace, err := guard.DecidePut(resource, fence, stored, bodyMD5)
		if err != nil {
			return nil, err
		}
		in := &s3.PutObjectInput{
			Bucket:      aws.String(bucket),
			Key:         aws.String(key),
			Body:        bytes.NewReader(body),
			Metadata:    s.metadata,
			ContentType: s.contentType,
		}
		if replace {
			in.IfMatch = aws.String(stored.ETag)
		} else {
			in.IfNoneMatch = aws.String("*")
		}
		out, err := client.PutObject(ctx, in)
		if err == nil {
			return out, nil
		}
		if !overtaken(err) {
			return nil, sdkError(fmt.Sprintf("the guarded write of object %q", resource), err)
		}
	}
	return nil, guard.TooManyRaces(resource)
}

// check refuses what the guard cannot write: invalid, naming what is
// wrong.
func check(client Client, bucket, key string, metadata map[string]string) error {
	invalid := func(format string, args ...any) error {
		return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case client == nil:
		return invalid("s3guard was given a nil S3 client for object %q", bucket+"/"+key)
	case bucket == "" || key == "":
		return invalid("s3guard needs a bucket and a key; it was given bucket %q and key %q", bucket, key)
	}
	return guard.CheckMetadata(bucket+"/"+key, metadata)
}

// head reads the object's ETag and fence; nil when there is none.
func head(ctx context.Context, client Client, bucket, key, resource string) (*guard.Stored, error) {
	out, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	switch {
	case err == nil:
	case status(err) == 404:
		return nil, nil
	case status(err) == 403:
		return nil, guard.HeadRefused(resource, 403)
	default:
		return nil, sdkError(fmt.Sprintf("reading object %q for the guard", resource), err)
	}
	stored := &guard.Stored{ETag: aws.ToString(out.ETag)}
	for k, v := range out.Metadata {
		if strings.EqualFold(k, MetadataKey) {
			stored.Fence = &v
		}
	}
	return stored, nil
}

// status is the HTTP status of an SDK error; 0 when it has none.
func status(err error) int {
	var answered interface{ HTTPStatusCode() int }
	if errors.As(err, &answered) {
		return answered.HTTPStatusCode()
	}
	return 0
}

// overtaken tells a write that lost its condition to another writer:
// 412 PreconditionFailed, or 409 ConditionalRequestConflict (a
// conditional write racing another on the same key).
func overtaken(err error) bool {
	if status(err) == 412 {
		return true
	}
	var api smithy.APIError
	return errors.As(err, &api) &&
		(api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "ConditionalRequestConflict")
}

// ioError is an io error that wraps the SDK's, so that errors.Is matches
// tinystore.ErrIO and errors.As reaches the SDK's own types.
type ioError struct {
	io  *locks.Error
	sdk error
}

func sdkError(doing string, err error) error {
	return &ioError{io: &locks.Error{Code: locks.CodeIO, Message: doing + ": " + err.Error()}, sdk: err}
}

func (e *ioError) Error() string   { return e.io.Error() }
func (e *ioError) Unwrap() []error { return []error{e.io, e.sdk} }
