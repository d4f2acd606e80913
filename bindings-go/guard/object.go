package guard

// The object-storage guard's decisions (the core's guard::object), for a
// guarded put on any S3 client: tinystore.dev/go/s3guard applies them on
// aws-sdk-go-v2, and another client may apply them the same way.

import (
	"errors"

	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// Names are the object-storage guard's names, the core's.
type Names struct {
	// MetadataKey holds an object's fence, as 40 digits.
	MetadataKey string
	// TombstoneKey marks a guarded delete's tombstone (value "true").
	TombstoneKey string
	// MaxTries is how many times a guarded put reads and tries in all.
	MaxTries int
}

// ObjectNames gives the object-storage guard's names.
func ObjectNames() Names {
	return Names{MetadataKey: names.MetadataKey, TombstoneKey: names.TombstoneKey, MaxTries: names.MaxTries}
}

// Stored is an object as a HEAD read it.
type Stored struct {
	// ETag is the object's ETag as the store gave it, quotes included.
	ETag string
	// Fence is its MetadataKey metadata; nil when it has none.
	Fence *string
}

// DecidePut decides a guarded put of fence to resource ("bucket/key") over
// what a HEAD read (nil: no object), for a body whose hex MD5 is bodyMD5.
// replace true: write with If-Match on stored.ETag; false: with
// If-None-Match: *. Errors: a *tinystore.StaleError when the stored fence
// is larger; corrupt when it is not 40 digits (naming the object's
// metadata); invalid when the body would keep the object's ETag, or for
// a bad resource.
func DecidePut(resource string, fence locks.Fence, stored *Stored, bodyMD5 string) (replace bool, err error) {
	var in *native.Stored
	if stored != nil {
		in = &native.Stored{ETag: stored.ETag, Fence: stored.Fence}
	}
	replace, epoch, count, err := native.GuardDecidePut(resource, fence.Epoch, fence.Count, in, bodyMD5)
	var refusal *locks.Error
	if errors.As(err, &refusal) && refusal.Code == locks.CodeStale {
		return false, &locks.StaleError{
			Resource: resource,
			Fence:    fence,
			Largest:  locks.Fence{Epoch: epoch, Count: count},
			Message:  refusal.Message,
		}
	}
	return replace, err
}

// TooManyRaces is the limit error of a guarded put of resource that met
// another writer on every one of its MaxTries tries.
func TooManyRaces(resource string) error {
	return native.GuardTooManyRaces(resource)
}

// CheckMetadata checks the caller's own metadata for a guarded put of
// resource ("bucket/key"): invalid, naming the key, when a key is one of
// the guard's own (MetadataKey, TombstoneKey, in any case).
func CheckMetadata(resource string, metadata map[string]string) error {
	for k := range metadata {
		if err := native.GuardCheckMetadataKey(resource, k); err != nil {
			return err
		}
	}
	return nil
}

// HeadRefused is the unauthorized error of a guarded put whose HEAD of
// resource was refused with HTTP status (403): the guard must read the
// object's fence and ETag before it writes.
func HeadRefused(resource string, status int) error {
	return native.GuardHeadRefused(resource, status)
}
