// Command bench-cloud measures the DynamoDB, GCS and Azure guards' cost
// per write, each against the same write unguarded, on the emulators the
// Makefile starts: a plain PutItem against dynamoguard.PutItem (one
// TransactWriteItems of the item and the register's conditional put) on
// moto ($TINYSTORE_S3_URL), a plain upload (a storage.Writer whose
// ChunkSize is one more than the data: one multipart request, buffered so
// the client may retry it, as the guard's) against
// gcsguard.Upload (a metadata read, then an upload on the generation) on
// fake-gcs-server ($STORAGE_EMULATOR_HOST, $TINYSTORE_GCS_URL), and a
// plain blockblob UploadBuffer against azureguard.UploadBuffer (a
// GetProperties, then an upload on the ETag) on Azurite
// ($TINYSTORE_AZURE_CONNECTION_STRING), of one small item or object. Plain
// and guarded take turns sample by sample (a sample is --writes writes of
// one kind), after one round as warm-up. It prints the median µs per
// write of each and the ratios, as core/benches/guard_cloud.rs and
// bindings-python/bench/guard_cloud.py do. The figures are the
// emulators', not the clouds'.
//
//	make bench-guards-cloud-go
//	go run ./bench-cloud (in tests/guards/go, under with-s3.sh, with-gcs.sh
//	and with-azurite.sh) --samples 9 --writes 100
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"tinystore.dev/go/azureguard"
	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/gcsguard"
	"tinystore.dev/go/locks"
)

func main() {
	samples := flag.Int("samples", 9, "samples of each kind")
	writes := flag.Int("writes", 100, "writes per sample")
	flag.Parse()
	if err := run(*samples, *writes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cloud:", err)
		os.Exit(1)
	}
}

func run(samples, writes int) error {
	var missing []string
	for _, name := range []string{"TINYSTORE_S3_URL", "TINYSTORE_GCS_URL", "STORAGE_EMULATOR_HOST", "TINYSTORE_AZURE_CONNECTION_STRING"} {
		if os.Getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s unset: run with make bench-guards-cloud-go", strings.Join(missing, ", "))
	}
	ctx := context.Background()
	type row struct {
		store, write string
		p, g         float64
	}
	var rows []row
	for _, b := range []struct {
		store, write string
		pair         func(context.Context, *bench) error
	}{
		{"DynamoDB (moto), aws-sdk-go-v2 dynamodb " + module("github.com/aws/aws-sdk-go-v2/service/dynamodb"), "`PutItem`", dynamo},
		{"GCS (fake-gcs-server), cloud.google.com/go/storage " + module("cloud.google.com/go/storage"), "upload (`Writer`, multipart)", gcs},
		{"Azure Blob (Azurite), azblob " + module("github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"), "`UploadBuffer`", azure},
	} {
		bench := &bench{samples: samples, writes: writes}
		if err := b.pair(ctx, bench); err != nil {
			return fmt.Errorf("%s: %w", b.store, err)
		}
		rows = append(rows, row{b.store, b.write, bench.p, bench.g})
	}
	fmt.Printf("median of %d samples of %d writes, plain and guarded in turn\n", samples, writes)
	fmt.Println("| store, client | the plain write | µs plain | µs guarded | guarded over plain |")
	fmt.Println("| --- | --- | ---: | ---: | ---: |")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %.0f | %.0f | %.2fx |\n", r.store, r.write, r.p, r.g, r.g/r.p)
	}
	return nil
}

// bench times a plain and a guarded write in turn, sample by sample.
type bench struct {
	samples, writes int
	p, g            float64 // the medians, µs per write
}

// pair sets b's medians of plain and guarded, each given a number larger
// than the last (its fence, and its body's).
func (b *bench) pair(plain, guarded func(n uint64) error) error {
	var n uint64
	var took [2][]float64
	for round := 0; round <= b.samples; round++ {
		for kind, write := range []func(uint64) error{plain, guarded} {
			start := time.Now()
			for range b.writes {
				n++
				if err := write(n); err != nil {
					return err
				}
			}
			if round > 0 { // the first round warms the connections up, unmeasured
				took[kind] = append(took[kind], float64(time.Since(start).Nanoseconds())/1e3/float64(b.writes))
			}
		}
	}
	b.p, b.g = median(took[0]), median(took[1])
	return nil
}

func dynamo(ctx context.Context, b *bench) error {
	client := dynamodb.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(os.Getenv("TINYSTORE_S3_URL")) })
	table := fmt.Sprintf("bench-chats-go-%d", os.Getpid())
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return err
	}
	if err := dynamoguard.Ensure(ctx, client, dynamoguard.RegisterTable); err != nil {
		return err
	}
	item := func(id string, n uint64) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"id":      &types.AttributeValueMemberS{Value: id},
			"summary": &types.AttributeValueMemberS{Value: fmt.Sprintf("summary %d", n)},
		}
	}
	return b.pair(
		func(n uint64) error {
			_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("plain", n)})
			return err
		},
		func(n uint64) error {
			put := &types.Put{TableName: aws.String(table), Item: item("guarded", n)}
			return dynamoguard.PutItem(ctx, client, "bench/guarded", put, locks.Fence{Count: n})
		},
	)
}

func gcs(ctx context.Context, b *bench) error {
	client, err := storage.NewClient(ctx) // STORAGE_EMULATOR_HOST: the emulator, no credentials
	if err != nil {
		return err
	}
	defer func() { _ = client.Close() }()
	bucket := client.Bucket("tinystore")
	name := fmt.Sprintf("bench-go-%d", os.Getpid())
	plain, guarded := bucket.Object(name+"-plain"), bucket.Object(name+"-guarded")
	return b.pair(
		func(n uint64) error {
			data := fmt.Sprintf("summary %d", n)
			w := plain.NewWriter(ctx)
			w.ChunkSize = len(data) + 1 // one request, buffered, as the guard's upload
			if _, err := w.Write([]byte(data)); err != nil {
				_ = w.Close()
				return err
			}
			return w.Close()
		},
		func(n uint64) error {
			_, err := gcsguard.Upload(ctx, guarded, fmt.Appendf(nil, "summary %d", n), locks.Fence{Count: n})
			return err
		},
	)
}

func azure(ctx context.Context, b *bench) error {
	conn := os.Getenv("TINYSTORE_AZURE_CONNECTION_STRING")
	name := fmt.Sprintf("bench-go-%d", os.Getpid())
	plain, err := blockblob.NewClientFromConnectionString(conn, "tinystore", name+"-plain", nil)
	if err != nil {
		return err
	}
	guarded, err := blockblob.NewClientFromConnectionString(conn, "tinystore", name+"-guarded", nil)
	if err != nil {
		return err
	}
	return b.pair(
		func(n uint64) error {
			_, err := plain.UploadBuffer(ctx, fmt.Appendf(nil, "summary %d", n), nil)
			return err
		},
		func(n uint64) error {
			_, err := azureguard.UploadBuffer(ctx, guarded, fmt.Appendf(nil, "summary %d", n), locks.Fence{Count: n}, nil)
			return err
		},
	)
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// module is the version of the module path the binary was built with.
func module(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(unknown)"
}
