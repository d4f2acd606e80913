// Package s3guard is the fence's guard on S3 and S3-compatible object
// storage, on the aws-sdk-go-v2 client the caller already made: a put
// that a late lock holder cannot land over a later holder's write, and
// the read that sees the latest.
//
//	_, err := s3guard.Put(ctx, client, "reports", "chats/42.json", body, lease.Fence)
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote the object
//	obj, err := s3guard.Get(ctx, client, "reports", "chats/42.json")
//	// obj.Body, obj.Fence; nil when there is none
//
// A guarded object is one object per fence under its key:
// KEY/tinystore-fence/<the fence as 40 digits>, read back by the largest
// (Get). A put lists the key's fences (a larger one: a
// *tinystore.StaleError, nothing written), puts its own fence's object
// (unconditionally: only a writer of that fence writes it), and lists
// again: a larger fence now refuses it (its object is deleted, and no
// reader ever took it for the latest); otherwise it is accepted and the
// smaller fences' objects are deleted. No interleaving lets a smaller
// fence become the one a reader sees, whatever bodies repeat; writing the
// same body again under a later fence is a write like any other.
//
// Delete writes an empty tombstone under its fence, so that the fence
// stays and a late holder cannot bring the object back; Get reads it as
// no object.
//
// The protocol is tinystore's core's (its ObjectWrite and ObjectRead
// machines, the same in every language): this package makes the requests
// they ask for on the caller's client and reports what S3 answered. The
// package lives in its own module, tinystore.dev/go/s3guard, so that
// tinystore.dev/go itself needs nothing but the standard library.
package s3guard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

var names = native.GuardNamesOf()

// The metadata keys and the bound on a read's tries, the core's.
var (
	// MetadataKey holds the fence of a fence's object as 40 digits
	// ("tinystore-fence"; S3 sends it as x-amz-meta-tinystore-fence).
	MetadataKey = names.MetadataKey
	// TombstoneKey marks the object a guarded delete leaves
	// ("tinystore-deleted", value "true").
	TombstoneKey = names.TombstoneKey
	// MaxTries is how many times Get lists and gets in all when a later
	// writer deletes the object it listed before it could get it.
	MaxTries = names.MaxTries
)

// Client is what the guard calls: *s3.Client has every method.
type Client interface {
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
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
// S3's answer to the put of its fence's object. Errors: a
// *tinystore.StaleError (resource "bucket/key", both fences) when a
// larger fence is stored, before or after the put; corrupt when an object
// under KEY/tinystore-fence/ is not named by 40 digits (a hand edit);
// invalid for a nil client, an empty bucket or key, a bucket or key that
// is not UTF-8 or a key holding "/tinystore-fence/", or metadata naming
// the guard's own keys. An error of the client is returned as an error of
// the code the core classifies it as (unauthorized for a 403,
// unavailable for an unreachable store or a 5xx, io otherwise) that
// wraps the SDK's: errors.As still reaches smithy.APIError.
//
// under is the lease's Fence or the *locks.Lease itself: given the lease,
// a stale refusal is also told to its store (locks.Fenced).
func Put(ctx context.Context, client Client, bucket, key string, body []byte, under locks.Fenced, opts ...Option) (*s3.PutObjectOutput, error) {
	s := settings{metadata: map[string]string{}}
	for _, opt := range opts {
		opt(&s)
	}
	if err := present(client, bucket, key); err != nil {
		return nil, err
	}
	var out *s3.PutObjectOutput
	err := guardio.Checked(ctx, "s3guard.Put", under, bucket+"/"+key, "s3", func(fence locks.Fence) error {
		m, first, err := native.NewObjectPut(bucket, key, fence.Epoch, fence.Count, s.metadata)
		if err != nil {
			return err
		}
		out, err = write(ctx, client, bucket, m, first, body, s.contentType)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete is the guarded delete of bucket/key with fence: the put of an
// empty tombstone under its fence, which keeps the fence, so that a late
// holder's put is still refused; Get reads it as no object. Deleting
// again is fine. Its errors and its under are Put's.
func Delete(ctx context.Context, client Client, bucket, key string, under locks.Fenced) (*s3.PutObjectOutput, error) {
	if err := present(client, bucket, key); err != nil {
		return nil, err
	}
	var out *s3.PutObjectOutput
	err := guardio.Checked(ctx, "s3guard.Delete", under, bucket+"/"+key, "s3", func(fence locks.Fence) error {
		m, first, err := native.NewObjectDelete(bucket, key, fence.Epoch, fence.Count)
		if err != nil {
			return err
		}
		out, err = write(ctx, client, bucket, m, first, nil, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// An Object is what Get read: the body of the largest fence's object, its
// fence, and the caller's own metadata written with it.
type Object struct {
	Body     []byte
	Fence    locks.Fence
	Metadata map[string]string
}

// Get reads bucket/key as the guard keeps it: the object of the largest
// fence, or nil when there is none (never written through the guard, or
// deleted by Delete). A later writer that deletes the object Get listed
// before Get could read it makes Get list again, MaxTries times in all,
// then limit. Its other errors are Put's.
func Get(ctx context.Context, client Client, bucket, key string) (*Object, error) {
	if err := present(client, bucket, key); err != nil {
		return nil, err
	}
	m, first, err := native.NewObjectRead(bucket, key)
	if err != nil {
		return nil, err
	}
	defer m.Free()
	var read Object
	err = guardio.Run(m, first, func(step native.Step) (native.Observed, error) {
		if step.Kind != native.StepGet {
			return request(ctx, client, bucket, step, nil, nil, nil)
		}
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(step.Text)})
		if err != nil {
			return guardio.Failed(err)
		}
		defer func() { _ = out.Body.Close() }()
		body, err := io.ReadAll(out.Body)
		if err != nil {
			return guardio.Failed(err)
		}
		read = Object{Body: body, Metadata: map[string]string{}}
		for k, v := range out.Metadata {
			if !strings.EqualFold(k, MetadataKey) && !strings.EqualFold(k, TombstoneKey) {
				read.Metadata[k] = v
			}
		}
		return native.Observed{Kind: native.ObservedGot, Metadata: out.Metadata}, nil
	})
	if err != nil {
		return nil, err
	}
	found, epoch, count, err := m.Found()
	if err != nil || !found {
		return nil, err
	}
	read.Fence = locks.Fence{Epoch: epoch, Count: count}
	return &read, nil
}

// present refuses a nil client (the guard has nothing to call) before
// the core checks the rest.
func present(client Client, bucket, key string) error {
	if client == nil {
		return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf("s3guard was given a nil S3 client for object %q", bucket+"/"+key)}
	}
	return nil
}

// write drives a guarded put or delete on client.
func write(ctx context.Context, client Client, bucket string, m *native.Machine, first native.Step, body []byte, contentType *string) (*s3.PutObjectOutput, error) {
	defer m.Free()
	var written *s3.PutObjectOutput
	err := guardio.Run(m, first, func(step native.Step) (native.Observed, error) {
		return request(ctx, client, bucket, step, body, contentType, &written)
	})
	if err != nil {
		return nil, err
	}
	return written, nil
}

// request makes the List, Put or Delete a step asks for.
func request(ctx context.Context, client Client, bucket string, step native.Step, body []byte, contentType *string, written **s3.PutObjectOutput) (native.Observed, error) {
	switch step.Kind {
	case native.StepList:
		var keys []string
		pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(step.Text)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return guardio.Failed(err)
			}
			for _, o := range page.Contents {
				keys = append(keys, aws.ToString(o.Key))
			}
		}
		return native.Observed{Kind: native.ObservedListed, Keys: keys}, nil
	case native.StepPut:
		out, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:      aws.String(bucket),
			Key:         aws.String(step.Text),
			Body:        bytes.NewReader(body),
			Metadata:    step.Metadata,
			ContentType: contentType,
		})
		if err != nil {
			return guardio.Failed(err)
		}
		if written != nil {
			*written = out
		}
		return native.Observed{Kind: native.ObservedWritten}, nil
	case native.StepDelete:
		_, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(step.Text)})
		if err != nil {
			return guardio.Failed(err)
		}
		return native.Observed{Kind: native.ObservedDeleted}, nil
	}
	return native.Observed{}, nil // a step of no object machine: the machine says so
}
