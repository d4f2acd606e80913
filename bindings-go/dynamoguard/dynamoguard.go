// Package dynamoguard is the fence's guard on DynamoDB, on the
// aws-sdk-go-v2 client the caller already made (*dynamodb.Client): a
// write that a late lock holder cannot land over a later holder's.
//
//	put := &types.Put{TableName: aws.String("chats"), Item: map[string]types.AttributeValue{
//		"id":      &types.AttributeValueMemberS{Value: "42"},
//		"summary": &types.AttributeValueMemberS{Value: summary},
//	}}
//	err := dynamoguard.PutItem(ctx, client, "chats/42", put, lease.Fence)
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote: nothing was written
//
// Each call is one TransactWriteItems of the caller's items and, last,
// the register item's conditional put, which DynamoDB commits all or
// none. The register is a table of its own (RegisterTable,
// "tinystore_fences", unless Register names another; Ensure makes it),
// one item per resource: its key "resource" and "fence", the fence's 40
// digits as a string (a DynamoDB number holds 38 digits, a fence up to
// 39), put on the condition that no fence is recorded or a smaller or
// equal one of 40 characters. A smaller fence than the one recorded is a
// *tinystore.StaleError and writes nothing; an equal or larger one is
// accepted and recorded. A transaction holds at most 100 items: yours at
// most MaxItems (99).
//
// A guarded put, update or delete takes the SDK's *types.Put,
// *types.Update or *types.Delete: what one item of a transaction is, and
// what TransactWriteItems takes of a PutItem, UpdateItem or DeleteItem
// (it has no ReturnValues, say). TransactWriteItems takes your
// []types.TransactWriteItem.
//
// The protocol is tinystore's core's (its DynamoCheck machine, the same
// in every language): this package runs the transaction, and the read of
// the register item when DynamoDB did not return it, on the caller's
// client and reports what DynamoDB answered. The package lives in its own
// module, tinystore.dev/go/dynamoguard, so that tinystore.dev/go itself
// needs nothing but the standard library.
//
// Errors, from every guarded write: a *tinystore.StaleError (Resource,
// Fence, Largest) when a larger fence is recorded; corrupt, naming the
// resource and the register table, when the register item's fence is not
// 40 digits or not a string (a hand edit); invalid, before any call, for
// a nil client or item, a bad resource, an empty or non-UTF-8 register
// table name, or more than MaxItems items. An error of the client is
// returned as an error of the code the core classifies it as
// (unavailable for a server that cannot be reached, a 5xx or a throttle;
// io otherwise) that wraps the SDK's: errors.As still reaches *types.TransactionCanceledException (a
// condition of yours failed, or the transaction conflicted with another:
// IsSerializationFailure tells the conflict), *types.ResourceNotFoundException
// (a missing table), smithy.APIError and *smithy.OperationError.
//
// The SDK makes a transaction again when an attempt's answer is lost (a
// dropped connection, a timeout, a 5xx). The guard's call adds a
// middleware of its own to the operation (the Deserialize step's
// innermost, below the Finalize step's retries, so it sees each attempt)
// that notes each attempt's answer: when one got none, a 5xx or a 408,
// and the transaction, made again, then finds a larger fence, the call is
// unavailable (the
// unanswered attempt may have been written; whether it was is unknown),
// not stale, and the lease's store is told nothing.
package dynamoguard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

var names = native.DynamoNamesOf()

// The register table's name and the bound on a transaction's items, the
// core's.
var (
	// RegisterTable is the register table unless Register names another
	// ("tinystore_fences").
	RegisterTable = names.RegisterTable
	// MaxItems is the most items of yours one guarded transaction takes:
	// DynamoDB's 100, less the register's.
	MaxItems = names.MaxItems - 1
)

// Client is what a guarded write calls: *dynamodb.Client has both.
type Client interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// TableClient is what Ensure calls: *dynamodb.Client has both.
type TableClient interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
}

// An Option changes a guarded PutItem, UpdateItem or DeleteItem.
type Option func(*settings)

type settings struct {
	table string
}

// Register names the register table (RegisterTable unless given).
func Register(table string) Option {
	return func(s *settings) { s.table = table }
}

// EnsureWait bounds how long Ensure waits for the table to become active.
const EnsureWait = 5 * time.Minute

// Ensure makes the register table (key "resource", a string; on-demand
// billing) if it is missing, and waits until it is active, at most
// EnsureWait; running it again, or in several processes at once, is fine.
// A failure is the core's error of the SDK's, wrapping it.
func Ensure(ctx context.Context, client TableClient, table string) error {
	if client == nil || table == "" {
		return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf("dynamoguard.Ensure was given a nil DynamoDB client or an empty table name (table %q)", table)}
	}
	described, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err == nil && described.Table != nil && described.Table.TableStatus == types.TableStatusActive {
		return nil
	}
	if err != nil {
		_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("resource"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("resource"), AttributeType: types.ScalarAttributeTypeS}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) { // in use: made meanwhile by another caller
			return guardio.DriverError("making "+table, err)
		}
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = time.Second, 10*time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, EnsureWait); err != nil {
		return guardio.DriverError("waiting for "+table+" to be active", err)
	}
	return nil
}

// PutItem is put, guarded by fence for resource: one transaction of put
// and the register item's put.
func PutItem(ctx context.Context, client Client, resource string, put *types.Put, under locks.Fenced, opts ...Option) error {
	if put == nil {
		return missing("PutItem", "*types.Put", resource)
	}
	return single(ctx, client, resource, types.TransactWriteItem{Put: put}, under, opts)
}

// UpdateItem is update, guarded by fence for resource.
func UpdateItem(ctx context.Context, client Client, resource string, update *types.Update, under locks.Fenced, opts ...Option) error {
	if update == nil {
		return missing("UpdateItem", "*types.Update", resource)
	}
	return single(ctx, client, resource, types.TransactWriteItem{Update: update}, under, opts)
}

// DeleteItem is del, guarded by fence for resource. The register keeps
// the fence, so that a late holder's write is still refused.
func DeleteItem(ctx context.Context, client Client, resource string, del *types.Delete, under locks.Fenced, opts ...Option) error {
	if del == nil {
		return missing("DeleteItem", "*types.Delete", resource)
	}
	return single(ctx, client, resource, types.TransactWriteItem{Delete: del}, under, opts)
}

// TransactWriteItems writes items (at most MaxItems) and the register
// item's put in the register table table, in one TransactWriteItems,
// guarded by fence for resource: all of them, or none.
//
// Every call takes the lease's Fence or the *locks.Lease itself as under:
// given the lease, a stale refusal is also told to its store
// (locks.Fenced).
func TransactWriteItems(ctx context.Context, client Client, table, resource string, items []types.TransactWriteItem, under locks.Fenced) error {
	if client == nil {
		return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf("dynamoguard was given a nil DynamoDB client for resource %q", resource)}
	}
	return guardio.Checked(ctx, "dynamoguard", under, resource, "dynamodb", func(fence locks.Fence) error {
		return transact(ctx, client, table, resource, items, fence)
	})
}

func transact(ctx context.Context, client Client, table, resource string, items []types.TransactWriteItem, fence locks.Fence) error {
	m, step, err := native.NewDynamo(table, resource, fence.Epoch, fence.Count, uint(len(items)))
	if err != nil {
		return err
	}
	defer m.Free()
	// The SDK's last error is the cause of the verdict's, as a read that
	// follows a cancellation does not explain it away.
	var cause error
	for step.Kind != native.StepDone {
		var attempts guardio.Attempts
		observed, failed := do(ctx, client, items, step, &attempts)
		if failed != nil {
			cause = failed
		}
		if err := attempts.Tell(m.DynamoAttempted); err != nil {
			return err
		}
		if step, err = m.Observe(observed); err != nil {
			return err
		}
	}
	return guardio.Outcome(step.Verdict, cause)
}

// IsSerializationFailure reports whether err is, or wraps, a transaction
// that DynamoDB cancelled for a conflict with another
// (TransactionConflict), as the core classifies it: run the whole write
// again (take the fence anew only if the lease was lost); the retry is
// then decided by the rule. It is tinystore.dev/go/guard's
// IsSerializationFailure, which tells this as well.
func IsSerializationFailure(err error) bool {
	return guardio.IsSerializationFailure(err)
}

func single(ctx context.Context, client Client, resource string, item types.TransactWriteItem, under locks.Fenced, opts []Option) error {
	s := settings{table: RegisterTable}
	for _, opt := range opts {
		opt(&s)
	}
	return TransactWriteItems(ctx, client, s.table, resource, []types.TransactWriteItem{item}, under)
}

func missing(call, kind, resource string) error {
	return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf("dynamoguard.%s was given a nil %s for resource %q", call, kind, resource)}
}

// do makes the call step asks for and reports what DynamoDB answered,
// and the SDK's error when it failed.
func do(ctx context.Context, client Client, items []types.TransactWriteItem, step native.Step, attempts *guardio.Attempts) (native.Observed, error) {
	if len(step.Keys) != 1 || (step.Kind == native.StepTransact && len(step.Params) != 2) {
		return native.Observed{}, nil // a step of no DynamoDB machine: the machine says so
	}
	switch step.Kind {
	case native.StepTransact:
		all := append(slices.Clip(items), register(step.Text, step.Keys[0], step.Params[0], step.Params[1]))
		_, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: all}, watchAttempts(attempts))
		if err == nil {
			return native.Observed{Kind: native.ObservedWritten}, nil
		}
		if observed, ok := cancelled(err); ok {
			return observed, err
		}
		return guardio.Failed(err)
	case native.StepReadItem:
		got, err := client.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String(step.Text),
			Key:            map[string]types.AttributeValue{"resource": &types.AttributeValueMemberS{Value: step.Keys[0]}},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return guardio.Failed(err)
		}
		if fence := fenceOf(got.Item); fence != nil {
			return native.Observed{Kind: native.ObservedRow, Row: *fence}, nil
		}
		return native.Observed{Kind: native.ObservedNoRow}, nil
	}
	return native.Observed{}, nil
}

// attemptsWatcher is the middleware's ID on the operation's stack.
const attemptsWatcher = "tinystore.dynamoguard.LostAnswers"

// watchAttempts is an option of the call that adds, innermost in the
// Deserialize step (below the retries, and below the deserializer, so
// that it sees the raw answer), a middleware that notes in attempts each
// attempt's status, 0 when it got no answer (the transport's error: a
// lost connection, a timeout).
func watchAttempts(attempts *guardio.Attempts) func(*dynamodb.Options) {
	watch := middleware.DeserializeMiddlewareFunc(attemptsWatcher, func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleDeserialize(ctx, in)
		status := 0
		if answer, ok := out.RawResponse.(*smithyhttp.Response); ok && answer != nil && err == nil {
			status = answer.StatusCode
		}
		attempts.Add(status)
		return out, md, err
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Deserialize.Add(watch, middleware.After)
		})
	}
}

// register is the register item's conditional put of fence for resource
// in table, which asks for the old item when its condition fails.
func register(table, resource, fence, digits string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"resource": &types.AttributeValueMemberS{Value: resource},
			"fence":    &types.AttributeValueMemberS{Value: fence},
		},
		ConditionExpression: aws.String(names.Condition),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":fence":  &types.AttributeValueMemberS{Value: fence},
			":digits": &types.AttributeValueMemberN{Value: digits},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// cancelled is a cancelled transaction as the machine reads it: each
// item's reason code in order ("None" for one that was fine), the
// register item's fence when DynamoDB returned the item (the last
// reason's), and the exception described with its own code.
func cancelled(err error) (native.Observed, bool) {
	var cancel *types.TransactionCanceledException
	if !errors.As(err, &cancel) {
		return native.Observed{}, false
	}
	reasons := make([]string, len(cancel.CancellationReasons))
	for i, r := range cancel.CancellationReasons {
		reasons[i] = "None"
		if r.Code != nil {
			reasons[i] = *r.Code
		}
	}
	var recorded *string
	if n := len(cancel.CancellationReasons); n > 0 {
		recorded = fenceOf(cancel.CancellationReasons[n-1].Item)
	}
	failure := guardio.Describe(err)
	var api smithy.APIError
	if errors.As(err, &api) {
		code := api.ErrorCode()
		failure.ErrorCode = &code
	}
	return native.Observed{Kind: native.ObservedCancelled, Reasons: reasons, Recorded: recorded, Failure: failure}, true
}

// fenceOf is the register item's fence as text: a string as it is, a
// value of another type described (which the core calls corrupt); nil
// when there is no item or no fence.
func fenceOf(item map[string]types.AttributeValue) *string {
	value, ok := item["fence"]
	if !ok {
		return nil
	}
	if s, ok := value.(*types.AttributeValueMemberS); ok {
		return &s.Value
	}
	kind := "another"
	switch value.(type) {
	case *types.AttributeValueMemberN:
		kind = "N"
	case *types.AttributeValueMemberB:
		kind = "B"
	case *types.AttributeValueMemberBOOL:
		kind = "BOOL"
	case *types.AttributeValueMemberNULL:
		kind = "NULL"
	case *types.AttributeValueMemberL:
		kind = "L"
	case *types.AttributeValueMemberM:
		kind = "M"
	case *types.AttributeValueMemberSS:
		kind = "SS"
	case *types.AttributeValueMemberNS:
		kind = "NS"
	case *types.AttributeValueMemberBS:
		kind = "BS"
	}
	described := fmt.Sprintf("(a value of type %s)", kind)
	return &described
}
