package dynamoguard_test

// The DynamoDB guard on moto's server ($TINYSTORE_S3_URL, which serves
// DynamoDB too; tests/guards/with-s3.sh starts it), through the real
// aws-sdk-go-v2 client: the rule on a guarded put, update and delete and
// on a transaction of several items, nothing written when refused; one of
// the caller's own conditions failing; a hand-edited register; too many
// items and bad arguments refused before any call; a missing table; the
// server gone. Without the variable these tests skip, unless
// TINYSTORE_REQUIRE_S3 is set (as `make test-go` does), where they fail.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

var tables atomic.Int64

// endpoint is moto's server; the tests skip without it unless
// TINYSTORE_REQUIRE_S3 is set.
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

func clientAt(url string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, append([]func(*dynamodb.Options){func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) }}, optFns...)...)
}

// db is a client on moto, a chats table (key "id", a string) and a
// register table of the test's own, the register made by Ensure twice.
type db struct {
	t        *testing.T
	client   *dynamodb.Client
	chats    string
	register string
}

func newDB(t *testing.T) *db {
	t.Helper()
	ctx := context.Background()
	n := tables.Add(1)
	d := &db{t: t, client: clientAt(endpoint(t)),
		chats: fmt.Sprintf("chats-%d-%d", os.Getpid(), n), register: fmt.Sprintf("fences-%d-%d", os.Getpid(), n)}
	_, err := d.client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(d.chats),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := dynamoguard.Ensure(ctx, d.client, d.register); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// put is a guarded transaction's put of the chat id with its summary.
func (d *db) put(id, summary string) *types.Put {
	return &types.Put{TableName: aws.String(d.chats), Item: map[string]types.AttributeValue{"id": s(id), "summary": s(summary)}}
}

// summary is the chat's summary read without the guard, "none" when
// there is no item.
func (d *db) summary(id string) string {
	d.t.Helper()
	got, err := d.client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(d.chats), Key: map[string]types.AttributeValue{"id": s(id)}, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		d.t.Fatal(err)
	}
	if got.Item == nil {
		return "none"
	}
	return got.Item["summary"].(*types.AttributeValueMemberS).Value
}

// recorded is the register item's fence of resource in the register
// table, "none" when there is no item.
func (d *db) recorded(table, resource string) string {
	d.t.Helper()
	got, err := d.client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: map[string]types.AttributeValue{"resource": s(resource)}, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		d.t.Fatal(err)
	}
	if got.Item == nil {
		return "none"
	}
	return got.Item["fence"].(*types.AttributeValueMemberS).Value
}

// digits is the fence as the register records it: 40 digits.
func digits(f locks.Fence) string {
	return strings.Repeat("0", 40-len(f.String())) + f.String()
}

func stale(t *testing.T, err error, resource string, fence, largest locks.Fence) {
	t.Helper()
	var e *locks.StaleError
	if !errors.As(err, &e) || !errors.Is(err, locks.ErrStale) || e.Resource != resource || e.Fence != fence || e.Largest != largest {
		t.Fatalf("got %v (%+v), want stale of %s, fence %v, largest %v", err, e, resource, fence, largest)
	}
}

// A put of an equal or larger fence is accepted and recorded, one of a
// smaller is stale with the largest and writes nothing, across epochs
// too; in the register table RegisterTable unless Register names another.
func TestPutAcceptsEqualAndLargerAndRefusesSmallerWritingNothing(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	if err := dynamoguard.Ensure(ctx, d.client, dynamoguard.RegisterTable); err != nil {
		t.Fatal(err)
	}
	r := d.chats + "/42"
	for _, summary := range []string{"by 8", "by 8 again"} {
		if err := dynamoguard.PutItem(ctx, d.client, r, d.put("42", summary), locks.Fence{Count: 8}); err != nil {
			t.Fatal(err)
		}
	}
	err := dynamoguard.PutItem(ctx, d.client, r, d.put("42", "by 7, late"), locks.Fence{Count: 7})
	stale(t, err, r, locks.Fence{Count: 7}, locks.Fence{Count: 8})
	if got := d.summary("42"); got != "by 8 again" {
		t.Fatalf("the summary is %q", got)
	}
	if got := d.recorded(dynamoguard.RegisterTable, r); got != digits(locks.Fence{Count: 8}) {
		t.Fatalf("recorded %q", got)
	}
	big := locks.Fence{Epoch: 1}
	if err := dynamoguard.PutItem(ctx, d.client, r, d.put("42", "big"), big, dynamoguard.Register(d.register)); err != nil {
		t.Fatal(err)
	}
	err = dynamoguard.PutItem(ctx, d.client, r, d.put("42", "late"), locks.Fence{Count: math.MaxUint64}, dynamoguard.Register(d.register))
	stale(t, err, r, locks.Fence{Count: math.MaxUint64}, big)
	if got := d.recorded(d.register, r); got != digits(big) || len(got) != 40 || d.summary("42") != "big" {
		t.Fatalf("recorded %q, summary %q", got, d.summary("42"))
	}
}

// A guarded update and delete keep the rule; the register keeps the fence
// after a delete, so a late holder cannot bring the item back.
func TestUpdateAndDeleteKeepTheRuleAndTheFence(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	in := dynamoguard.Register(d.register)
	if err := dynamoguard.PutItem(ctx, d.client, "chats/42", d.put("42", "v"), locks.Fence{Count: 3}, in); err != nil {
		t.Fatal(err)
	}
	update := &types.Update{
		TableName:                 aws.String(d.chats),
		Key:                       map[string]types.AttributeValue{"id": s("42")},
		UpdateExpression:          aws.String("SET summary = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("updated")},
	}
	if err := dynamoguard.UpdateItem(ctx, d.client, "chats/42", update, locks.Fence{Count: 4}, in); err != nil {
		t.Fatal(err)
	}
	if got := d.summary("42"); got != "updated" {
		t.Fatalf("the summary is %q", got)
	}
	del := &types.Delete{TableName: aws.String(d.chats), Key: map[string]types.AttributeValue{"id": s("42")}}
	if err := dynamoguard.DeleteItem(ctx, d.client, "chats/42", del, locks.Fence{Count: 5}, in); err != nil {
		t.Fatal(err)
	}
	err := dynamoguard.PutItem(ctx, d.client, "chats/42", d.put("42", "back from the dead"), locks.Fence{Count: 4}, in)
	stale(t, err, "chats/42", locks.Fence{Count: 4}, locks.Fence{Count: 5})
	err = dynamoguard.UpdateItem(ctx, d.client, "chats/42", update, locks.Fence{Count: 4}, in)
	stale(t, err, "chats/42", locks.Fence{Count: 4}, locks.Fence{Count: 5})
	if got := d.summary("42"); got != "none" {
		t.Fatalf("the deleted item is back: %q", got)
	}
}

// Several items and the register are written together or not at all: a
// stale transaction writes none of them, and one whose own condition
// fails records no fence: the SDK's TransactionCanceledException, io,
// not a serialization failure.
func TestATransactionIsWrittenWithTheRegisterOrNotAtAll(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	items := func(summary string) []types.TransactWriteItem {
		return []types.TransactWriteItem{{Put: d.put("a", summary)}, {Put: d.put("b", summary)}}
	}
	if err := dynamoguard.TransactWriteItems(ctx, d.client, d.register, "chats/ab", items("by 9"), locks.Fence{Count: 9}); err != nil {
		t.Fatal(err)
	}
	err := dynamoguard.TransactWriteItems(ctx, d.client, d.register, "chats/ab", items("by 8"), locks.Fence{Count: 8})
	stale(t, err, "chats/ab", locks.Fence{Count: 8}, locks.Fence{Count: 9})
	if a, b := d.summary("a"), d.summary("b"); a != "by 9" || b != "by 9" {
		t.Fatalf("the items are %q, %q", a, b)
	}

	theirs := items("by 10")
	theirs[1].Put.ConditionExpression = aws.String("attribute_not_exists(id)") // b exists
	err = dynamoguard.TransactWriteItems(ctx, d.client, d.register, "chats/ab", theirs, locks.Fence{Count: 10})
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) || !errors.Is(err, locks.ErrIO) || !strings.Contains(err.Error(), "ConditionalCheckFailed") ||
		!strings.Contains(err.Error(), "chats/ab") {
		t.Fatalf("got %v, want io naming the resource and ConditionalCheckFailed, wrapping the SDK's exception", err)
	}
	if dynamoguard.IsSerializationFailure(err) || guard.IsSerializationFailure(err) {
		t.Fatalf("a failed condition of yours is told a serialization failure: %v", err)
	}
	if got := d.recorded(d.register, "chats/ab"); got != digits(locks.Fence{Count: 9}) {
		t.Fatalf("the register holds %q after a cancelled transaction", got)
	}
	if a, b := d.summary("a"), d.summary("b"); a != "by 9" || b != "by 9" {
		t.Fatalf("the items are %q, %q", a, b)
	}
	yours := d.put("c", "v")
	yours.ConditionExpression = aws.String("attribute_exists(id)")
	err = dynamoguard.PutItem(ctx, d.client, "chats/c", yours, locks.Fence{Count: 1}, dynamoguard.Register(d.register))
	if !errors.As(err, &cancelled) || d.recorded(d.register, "chats/c") != "none" || d.summary("c") != "none" {
		t.Fatalf("got %v; recorded %q, the item %q", err, d.recorded(d.register, "chats/c"), d.summary("c"))
	}
}

// A register item edited by hand (a number; a string that is not 40
// characters) is corrupt, naming the resource and the register table,
// and nothing is written.
func TestAHandEditedRegisterIsCorruptAndWritesNothing(t *testing.T) {
	for name, edit := range map[string]types.AttributeValue{
		"a number":       &types.AttributeValueMemberN{Value: "99"},
		"a short string": s("12"),
		"a long string":  s(strings.Repeat("0", 41)),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := newDB(t)
			in := dynamoguard.Register(d.register)
			if err := dynamoguard.PutItem(ctx, d.client, "chats/42", d.put("42", "v"), locks.Fence{Count: 3}, in); err != nil {
				t.Fatal(err)
			}
			_, err := d.client.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String(d.register), Item: map[string]types.AttributeValue{"resource": s("chats/42"), "fence": edit},
			})
			if err != nil {
				t.Fatal(err)
			}
			err = dynamoguard.PutItem(ctx, d.client, "chats/42", d.put("42", "after the edit"), locks.Fence{Count: 4}, in)
			var e *locks.Error
			if !errors.As(err, &e) || e.Code != locks.CodeCorrupt || !errors.Is(err, locks.ErrCorrupt) ||
				!strings.Contains(e.Message, `"chats/42"`) || !strings.Contains(e.Message, d.register) {
				t.Fatalf("got %v, want corrupt naming the resource and %s", err, d.register)
			}
			if got := d.summary("42"); got != "v" {
				t.Fatalf("the summary is %q", got)
			}
		})
	}
}

// counting is a client that counts the calls that reach moto.
type counting struct {
	*dynamodb.Client
	calls atomic.Int64
}

func (c *counting) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.calls.Add(1)
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}

func (c *counting) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.calls.Add(1)
	return c.Client.GetItem(ctx, in, optFns...)
}

// More than MaxItems items, a bad resource, a bad register table's name,
// a nil client or item: invalid, naming what is wrong, before any call.
func TestTooManyItemsAndBadArgumentsAreInvalidBeforeAnyCall(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	c := &counting{Client: d.client}
	many := make([]types.TransactWriteItem, dynamoguard.MaxItems+1)
	for i := range many {
		many[i] = types.TransactWriteItem{Put: d.put(fmt.Sprint(i), "x")}
	}
	if dynamoguard.MaxItems != 99 {
		t.Fatalf("MaxItems is %d", dynamoguard.MaxItems)
	}
	put := d.put("42", "x")
	for about, call := range map[string]func() error{
		"at most 99": func() error {
			return dynamoguard.TransactWriteItems(ctx, c, d.register, "chats/42", many, locks.Fence{Count: 1})
		},
		"resource": func() error { return dynamoguard.PutItem(ctx, c, "", put, locks.Fence{Count: 1}) },
		"table": func() error {
			return dynamoguard.PutItem(ctx, c, "chats/42", put, locks.Fence{Count: 1}, dynamoguard.Register(""))
		},
		"register table": func() error {
			return dynamoguard.PutItem(ctx, c, "chats/42", put, locks.Fence{Count: 1}, dynamoguard.Register("t\xff"))
		},
		"nil DynamoDB client": func() error {
			return dynamoguard.TransactWriteItems(ctx, nil, d.register, "chats/42", nil, locks.Fence{Count: 1})
		},
		"nil *types.Put":    func() error { return dynamoguard.PutItem(ctx, c, "chats/42", nil, locks.Fence{Count: 1}) },
		"nil *types.Update": func() error { return dynamoguard.UpdateItem(ctx, c, "chats/42", nil, locks.Fence{Count: 1}) },
		"nil *types.Delete": func() error { return dynamoguard.DeleteItem(ctx, c, "chats/42", nil, locks.Fence{Count: 1}) },
		"empty table name":  func() error { return dynamoguard.Ensure(ctx, d.client, "") },
	} {
		err := call()
		var e *locks.Error
		if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !errors.Is(err, locks.ErrInvalid) || !strings.Contains(e.Message, about) {
			t.Errorf("%s: got %v, want invalid naming it", about, err)
		}
	}
	if n := c.calls.Load(); n != 0 {
		t.Fatalf("%d calls reached DynamoDB", n)
	}
	if got := d.summary("0"); got != "none" {
		t.Fatalf("an item was written: %q", got)
	}
	if err := dynamoguard.TransactWriteItems(ctx, c, d.register, "chats/many", many[:dynamoguard.MaxItems], locks.Fence{Count: 1}); err != nil {
		t.Fatalf("%d items: %v", dynamoguard.MaxItems, err)
	}
	if got := d.summary("98"); got != "x" {
		t.Fatalf("item 98 is %q", got)
	}
}

// A missing table, yours or the register's, is the SDK's
// ResourceNotFoundException, wrapped; nothing is written.
func TestAMissingTableIsTheSDKsResourceNotFound(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	var missing *types.ResourceNotFoundException
	gone := &types.Put{TableName: aws.String(d.chats + "-never-made"), Item: map[string]types.AttributeValue{"id": s("1")}}
	err := dynamoguard.PutItem(ctx, d.client, "chats/1", gone, locks.Fence{Count: 1}, dynamoguard.Register(d.register))
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "chats/1") {
		t.Fatalf("got %v, want the SDK's ResourceNotFoundException, naming the resource", err)
	}
	if got := d.recorded(d.register, "chats/1"); got != "none" {
		t.Fatalf("the register holds %q", got)
	}
	err = dynamoguard.PutItem(ctx, d.client, "chats/1", d.put("1", "v"), locks.Fence{Count: 1}, dynamoguard.Register(d.register+"-never-made"))
	if !errors.As(err, &missing) || d.summary("1") != "none" {
		t.Fatalf("got %v with the item %q, want the SDK's ResourceNotFoundException and nothing written", err, d.summary("1"))
	}
}

// A transaction DynamoDB cancels for a conflict with another is a
// serialization failure, io, wrapping the SDK's exception. moto makes no
// conflicts: a proxy in front of it answers TransactWriteItems as
// DynamoDB does (a real answer read by the real SDK), and nothing reaches
// moto's tables.
func TestAConflictingTransactionIsASerializationFailure(t *testing.T) {
	d := newDB(t)
	target, err := url.Parse(endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != "DynamoDB_20120810.TransactWriteItems" {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",`+
			`"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]",`+
			`"CancellationReasons":[{"Code":"None"},{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}]}`)
	}))
	defer server.Close()
	client := clientAt(server.URL, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	err = dynamoguard.PutItem(context.Background(), client, "chats/42", d.put("42", "v"), locks.Fence{Count: 1}, dynamoguard.Register(d.register))
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) || !errors.Is(err, locks.ErrIO) || !strings.Contains(err.Error(), "TransactionConflict") {
		t.Fatalf("got %v, want io naming TransactionConflict, wrapping the SDK's exception", err)
	}
	if !dynamoguard.IsSerializationFailure(err) || !guard.IsSerializationFailure(err) {
		t.Fatalf("a conflict is not told a serialization failure: %v", err)
	}
	if d.summary("42") != "none" || d.recorded(d.register, "chats/42") != "none" {
		t.Fatal("something was written")
	}
}

// A server that cannot be reached is unavailable, naming the resource,
// and keeps the SDK's error.
func TestTheServerGoneIsUnavailable(t *testing.T) {
	endpoint(t)
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	client := clientAt(url, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	put := &types.Put{TableName: aws.String("chats"), Item: map[string]types.AttributeValue{"id": s("1")}}
	err := dynamoguard.PutItem(context.Background(), client, "chats/1", put, locks.Fence{Count: 1})
	var op *smithy.OperationError
	if !errors.Is(err, locks.ErrUnavailable) || !strings.Contains(err.Error(), "chats/1") || !errors.As(err, &op) {
		t.Fatalf("got %v, want unavailable naming the resource, wrapping the SDK's error", err)
	}
	if err := dynamoguard.Ensure(context.Background(), client, "fences"); !errors.Is(err, locks.ErrUnavailable) || !errors.As(err, &op) {
		t.Fatalf("Ensure got %v, want unavailable wrapping the SDK's error", err)
	}
}
