// Package azureguard is the fence's guard on Azure Blob Storage, on the
// azblob block blob client the caller already made
// (github.com/Azure/azure-sdk-for-go/sdk/storage/azblob's
// *blockblob.Client): an upload that a late lock holder cannot land over
// a later holder's.
//
//	blob := service.ServiceClient().NewContainerClient("chats").NewBlockBlobClient("42")
//	_, err := azureguard.UploadBuffer(ctx, blob, summary, lease.Fence, nil)
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote: nothing was written
//
// The fence lives in the blob's own metadata (MetadataKey,
// "tinystore_fence", 40 digits: Azure's metadata names are C#
// identifiers). A guarded upload reads the blob's ETag and fence
// (GetProperties; the SDK hands metadata names back canonicalized, so the
// key is compared without case), refuses with a *tinystore.StaleError
// when the fence is larger, and otherwise uploads your buffer and options
// with its own fence on the condition that the blob is still that ETag
// (If-Match) or still absent (If-None-Match: *). A failed condition (412
// ConditionNotMet, or 409 BlobAlreadyExists for a new blob) means another
// writer came in between: it reads again and decides again, at most five
// uploads in all. A blob written without the guard has no fence and is
// taken over. The resource is "CONTAINER/NAME".
//
// It is UploadBuffer with the SDK's own *blockblob.UploadBufferOptions, as
// you would call it: a buffer up to 256 MiB is one Put Blob; a larger one
// is staged in blocks and committed by one Put Block List on the same
// condition, so no other writer's blob is replaced either way. A delete
// cannot be guarded: it takes the fence with the blob (docs/guards.md
// says what to do instead).
//
// The protocol is tinystore's core's (its VersionedCheck machine, the same
// in every language): this package makes each read and upload on the
// caller's client and reports what the service answered. It lives in its
// own module, tinystore.dev/go/azureguard, so that tinystore.dev/go itself
// needs nothing but the standard library.
//
// Errors: a *tinystore.StaleError (Resource, Fence, Largest) when a larger
// fence is recorded; corrupt, naming the resource and the metadata key,
// when the fence is not 40 digits (a hand edit); limit after five uploads
// lost to other writers in a row; invalid, before any call, for a nil
// client, a URL that names no container or blob, AccessConditions of your
// own (the guard sets them), or your metadata under the guard's own key.
// An error of the client is returned as an error of the code the core
// classifies it as (unavailable for a service that cannot be reached or a
// 5xx; unauthorized for 401 and 403; io otherwise) that wraps the
// client's: errors.As still reaches *azcore.ResponseError, and
// bloberror.HasCode reads it. The upload's requests are retried as
// UploadBuffer says (retry options of the guard's, for it watches each
// attempt); the guard's tries are on top.
package azureguard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// MetadataKey is the metadata key that holds the fence.
const MetadataKey = "tinystore_fence"

// UploadBuffer uploads buffer to the blob with opts (nil: none), guarded
// by fence, and gives the upload's response. opts are the SDK's own (its
// HTTPHeaders, Metadata, Tags, AccessTier, BlockSize and the rest), but
// not its AccessConditions: the guard's. under is the lease's Fence or
// the *locks.Lease itself: given the lease, a stale refusal is also told
// to its store (locks.Fenced).
//
// The guard watches each attempt of the upload's requests, which the
// client's ClientOptions.Retry does not let it do: it makes them with
// retry options of its own, given to the call's context
// (policy.WithRetryOptions): azcore's defaults, or those Retry gives.
// When an attempt got no answer (a lost connection, a timeout), a 5xx or
// a 408 and was made again, that attempt may have been written, so a
// larger fence found after it is unavailable ("may have been written"),
// not stale, and is not told to the lease's store.
func UploadBuffer(ctx context.Context, client *blockblob.Client, buffer []byte, under locks.Fenced, opts *blockblob.UploadBufferOptions, guarding ...Option) (blockblob.UploadBufferResponse, error) {
	var none blockblob.UploadBufferResponse
	var retry policy.RetryOptions
	for _, option := range guarding {
		option(&retry)
	}
	if client == nil {
		return none, invalid("azureguard.UploadBuffer was given a nil *blockblob.Client; nothing was written")
	}
	parts, err := blob.ParseURL(client.URL())
	if err != nil || parts.ContainerName == "" || parts.BlobName == "" {
		return none, invalid(fmt.Sprintf("a guarded upload to %q names no container and blob; nothing was written", client.URL()))
	}
	resource := parts.ContainerName + "/" + parts.BlobName
	var mine blockblob.UploadBufferOptions
	if opts != nil {
		mine = *opts
	}
	if mine.AccessConditions != nil {
		return none, invalid(fmt.Sprintf("a guarded upload to %q sets its own AccessConditions: the guard sets them; nothing was written", resource))
	}
	keys := make([]string, 0, len(mine.Metadata))
	for k := range mine.Metadata {
		keys = append(keys, k)
	}
	if err := native.VersionedCheckMetadata(native.StoreAzure, resource, keys); err != nil {
		return none, err
	}
	var written blockblob.UploadBufferResponse
	err = guardio.Checked(ctx, "azureguard.UploadBuffer", under, resource, "azure", func(fence locks.Fence) error {
		return upload(ctx, client, buffer, mine, retry, resource, fence, &written)
	})
	if err != nil {
		return none, err
	}
	return written, nil
}

func upload(ctx context.Context, client *blockblob.Client, buffer []byte, mine blockblob.UploadBufferOptions, retry policy.RetryOptions, resource string, fence locks.Fence, written *blockblob.UploadBufferResponse) error {
	m, step, err := native.NewVersioned(native.StoreAzure, resource, fence.Epoch, fence.Count)
	if err != nil {
		return err
	}
	defer m.Free()
	return guardio.Run(m, step, func(step native.Step) (native.Observed, error) {
		switch step.Kind {
		case native.StepReadObject:
			return read(ctx, client, step.Text)
		case native.StepPutVersioned:
			if len(step.Params) == 0 || len(step.Params) > 2 {
				return native.Observed{}, nil // not the machine's put: it says so
			}
			var attempts guardio.Attempts
			observed, got, err := put(watched(ctx, retry, &attempts), client, buffer, mine, step)
			if observed.Kind == native.ObservedWritten {
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

// An Option sets how a guarded upload is made.
type Option func(*policy.RetryOptions)

// Retry sets the retry options of the guarded upload's requests, which
// take the place of the client's ClientOptions.Retry for them (the guard
// cannot read the client's); without it they are azcore's defaults. A
// ShouldRetry of yours still decides which attempts are made again.
func Retry(options policy.RetryOptions) Option {
	return func(o *policy.RetryOptions) { *o = options }
}

// retried are the statuses azcore's retry policy makes again when
// RetryOptions.StatusCodes is nil.
var retried = []int{
	http.StatusRequestTimeout,
	http.StatusTooManyRequests,
	http.StatusInternalServerError,
	http.StatusBadGateway,
	http.StatusServiceUnavailable,
	http.StatusGatewayTimeout,
}

// watched is ctx with retry's options for the call, whose ShouldRetry
// (retry's own, or azcore's rule: a transport error or one of the
// StatusCodes) also notes in attempts the status of each attempt it makes
// again (0 for no answer); core decides which of them may have been
// written.
func watched(ctx context.Context, retry policy.RetryOptions, attempts *guardio.Attempts) context.Context {
	should := retry.ShouldRetry
	if should == nil {
		statuses := retry.StatusCodes
		if statuses == nil {
			statuses = retried
		}
		should = func(answer *http.Response, err error) bool {
			return err != nil || runtime.HasStatusCode(answer, statuses...)
		}
	}
	retry.ShouldRetry = func(answer *http.Response, err error) bool {
		again := should(answer, err)
		if again {
			status := 0
			if err == nil && answer != nil {
				status = answer.StatusCode
			}
			attempts.Add(status)
		}
		return again
	}
	return policy.WithRetryOptions(ctx, retry)
}

func invalid(message string) error {
	return &locks.Error{Code: locks.CodeInvalid, Message: message}
}

// read is the blob's ETag and its fence under key, compared without case.
func read(ctx context.Context, client *blockblob.Client, key string) (native.Observed, error) {
	props, err := client.GetProperties(ctx, nil)
	if err != nil {
		if bloberror.HasCode(err, bloberror.BlobNotFound) {
			return native.Observed{Kind: native.ObservedAbsent}, nil
		}
		return guardio.Failed(err)
	}
	if props.ETag == nil {
		return guardio.Failed(fmt.Errorf("the blob %s was read without its ETag", client.URL()))
	}
	observed := native.Observed{Kind: native.ObservedFound, Version: string(*props.ETag)}
	for k, v := range props.Metadata {
		if strings.EqualFold(k, key) && v != nil {
			observed.Recorded = v
			break
		}
	}
	return observed, nil
}

// put uploads buffer with opts and the fence on the step's condition.
func put(ctx context.Context, client *blockblob.Client, buffer []byte, opts blockblob.UploadBufferOptions, step native.Step) (native.Observed, blockblob.UploadBufferResponse, error) {
	modified := &blob.ModifiedAccessConditions{}
	if len(step.Params) == 2 {
		etag := azcore.ETag(step.Params[1])
		modified.IfMatch = &etag
	} else {
		anyTag := azcore.ETagAny
		modified.IfNoneMatch = &anyTag
	}
	opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: modified}
	opts.Metadata = maps.Clone(opts.Metadata)
	if opts.Metadata == nil {
		opts.Metadata = map[string]*string{}
	}
	fence := step.Params[0]
	opts.Metadata[step.Text] = &fence
	got, err := client.UploadBuffer(ctx, buffer, &opts)
	if err == nil {
		return native.Observed{Kind: native.ObservedWritten}, got, nil
	}
	if conditionFailed(err) {
		return native.Observed{Kind: native.ObservedConditionFailed}, got, nil
	}
	observed, err := guardio.Failed(err)
	return observed, got, err
}

// conditionFailed tells a failed If-Match (412 ConditionNotMet) or
// If-None-Match: * (409 BlobAlreadyExists; 412 on some services).
func conditionFailed(err error) bool {
	if bloberror.HasCode(err, bloberror.ConditionNotMet, bloberror.BlobAlreadyExists) {
		return true
	}
	var answer *azcore.ResponseError
	return errors.As(err, &answer) && answer.StatusCode == http.StatusPreconditionFailed
}
