package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/locks"
)

var tables atomic.Int64

// dynamoStore is the dynamodb backend: moto's DynamoDB at
// $TINYSTORE_S3_URL through aws-sdk-go-v2, a chats table per scenario
// (the item "id" 42 written under the guard, its resource TABLE/42), the
// register table tinystore_fences made by dynamoguard.Ensure.
type dynamoStore struct {
	client   *dynamodb.Client
	table    string
	resource string // the cell's resource, which names TABLE/42
}

func dynamoClient(endpoint string, attempts int) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		if attempts > 0 {
			o.RetryMaxAttempts = attempts
		}
	})
}

func openDynamo(ctx context.Context, scenario, resource string) (*dynamoStore, error) {
	endpoint := os.Getenv("TINYSTORE_S3_URL")
	if endpoint == "" {
		return nil, errors.New("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
	}
	d := &dynamoStore{
		client:   dynamoClient(endpoint, 0),
		table:    fmt.Sprintf("go-%s-%d-%d", scenario, os.Getpid(), tables.Add(1)),
		resource: resource,
	}
	_, err := d.client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(d.table),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return nil, err
	}
	if err := dynamoguard.Ensure(ctx, d.client, dynamoguard.RegisterTable); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *dynamoStore) close() {}

func (d *dynamoStore) staleResource() string { return d.table + "/42" }

func (d *dynamoStore) resourceOf(resource string) string {
	if resource == d.resource {
		return d.staleResource()
	}
	return resource
}

func (d *dynamoStore) put(body string) *types.Put {
	return &types.Put{TableName: aws.String(d.table), Item: map[string]types.AttributeValue{
		"id":      &types.AttributeValueMemberS{Value: "42"},
		"summary": &types.AttributeValueMemberS{Value: body},
	}}
}

// write is a guarded PutItem of the chats item; the item is written with
// the register or not at all, which write checks too.
func (d *dynamoStore) write(ctx context.Context, f locks.Fence, body *string, resource string) error {
	return d.writeWith(ctx, d.client, f, body, resource)
}

func (d *dynamoStore) writeWith(ctx context.Context, client *dynamodb.Client, f locks.Fence, body *string, resource string) error {
	text := string(bodyOf(f, body))
	outcome := dynamoguard.PutItem(ctx, client, d.resourceOf(resource), d.put(text), f)
	if client != d.client {
		return outcome
	}
	written, err := d.summary(ctx)
	if err != nil {
		return err
	}
	if (outcome == nil) != (written == text) {
		return fmt.Errorf("the write ended %s, yet the item reads %q", describe(outcome), written)
	}
	return outcome
}

// summary is the chats item's summary ("" when there is none).
func (d *dynamoStore) summary(ctx context.Context) (string, error) {
	got, err := d.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(d.table),
		Key:            map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "42"}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", err
	}
	if s, ok := got.Item["summary"].(*types.AttributeValueMemberS); ok {
		return s.Value, nil
	}
	return "", nil
}

// recorded is the register item's fence; the chats item's summary is the
// body.
func (d *dynamoStore) recorded(ctx context.Context) (*locks.Fence, string, error) {
	got, err := d.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(dynamoguard.RegisterTable),
		Key:            map[string]types.AttributeValue{"resource": &types.AttributeValueMemberS{Value: d.staleResource()}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, "", err
	}
	value, ok := got.Item["fence"]
	if !ok {
		return nil, "", nil
	}
	s, ok := value.(*types.AttributeValueMemberS)
	if !ok {
		return nil, "", fmt.Errorf("the register holds a fence of type %T", value)
	}
	f, err := locks.ParseFence(s.Value)
	if err != nil {
		return nil, "", fmt.Errorf("the register holds %q: %w", s.Value, err)
	}
	body, err := d.summary(ctx)
	return &f, body, err
}

// corrupt puts a number where the register's 40-digit string belongs.
func (d *dynamoStore) corrupt(ctx context.Context) error {
	_, err := d.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(dynamoguard.RegisterTable),
		Item: map[string]types.AttributeValue{
			"resource": &types.AttributeValueMemberS{Value: d.staleResource()},
			"fence":    &types.AttributeValueMemberN{Value: "5"},
		},
	})
	return err
}

// unchanged checks that the chats item reads as it does now.
func (d *dynamoStore) unchanged(ctx context.Context) (func() error, error) {
	before, err := d.summary(ctx)
	if err != nil {
		return nil, err
	}
	return func() error {
		after, err := d.summary(ctx)
		if err != nil {
			return err
		}
		if after != before {
			return fmt.Errorf("a refused write changed the item: %q, then %q", before, after)
		}
		return nil
	}, nil
}

// driverError tells the SDK's own error: unavailable is a request that
// never got an answer (a refused connection).
func (d *dynamoStore) driverError(kind string, err error) bool {
	var op *smithy.OperationError
	var refused *net.OpError
	return kind == "unavailable" && errors.As(err, &op) && errors.As(err, &refused)
}

func (d *dynamoStore) steps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		// A client of the same SDK whose endpoint nothing listens on, with
		// one attempt: nothing is written.
		"server_gone": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			gone, err := deadEndpoint()
			if err != nil {
				return err
			}
			if err := judge(st.expect("expect"), d.writeWith(ctx, dynamoClient(gone, 1), f, nil, d.resource), f); err != nil {
				return err
			}
			if got, body, err := d.recorded(ctx); err != nil || got != nil || body != "" {
				return fmt.Errorf("after the server was gone it holds %v, %q (%v)", got, body, err)
			}
			return nil
		},
	}
}
