// Command bench-s3 measures the object-storage guard's cost per write on
// the S3-compatible server at $TINYSTORE_S3_URL (moto's, on loopback, from
// tests/guards/with-s3.sh): a plain PutObject against s3guard.Put (a
// listing of the key's fences, the put of its own fence's object, a
// listing again, and the delete of the previous fence's object) of the
// same body size, taking turns write by write so that both see the same
// machine. It prints the median µs per write of each and the guarded
// one's ratio.
//
//	make bench-guards-s3-go
//	go run ./bench-s3 (in tests/guards/go, under with-s3.sh) --writes 500
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
)

func main() {
	writes := flag.Int("writes", 500, "writes of each kind")
	flag.Parse()
	if err := run(*writes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-s3:", err)
		os.Exit(1)
	}
}

func run(writes int) error {
	endpoint := os.Getenv("TINYSTORE_S3_URL")
	if endpoint == "" {
		return errors.New("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
	}
	ctx := context.Background()
	client := s3.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
	bucket := fmt.Sprintf("bench-s3-go-%d", os.Getpid())
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return err
	}
	var plain, guarded []time.Duration
	// Both kinds write bodies of one size, each write under a larger fence.
	body := func(i int) []byte { return fmt.Appendf(nil, `{"summary": "write %08d"}`, i) }
	for i := -20; i < writes; i++ { // 20 rounds of warm-up, not counted
		start := time.Now()
		_, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String("plain"), Body: bytes.NewReader(body(i + 20)),
			Metadata: map[string]string{s3guard.MetadataKey: fmt.Sprintf("%040d", i+20)},
		})
		took := time.Since(start)
		if err != nil {
			return err
		}
		if i >= 0 {
			plain = append(plain, took)
		}
		start = time.Now()
		_, err = s3guard.Put(ctx, client, bucket, "guarded", body(i+20), locks.Fence{Count: uint64(i + 20)})
		took = time.Since(start)
		if err != nil {
			return err
		}
		if i >= 0 {
			guarded = append(guarded, took)
		}
	}
	p, g := median(plain), median(guarded)
	fmt.Printf("%-28s %7s %10s %12s %6s\n", "store", "writes", "plain µs", "guarded µs", "ratio")
	fmt.Printf("%-28s %7d %10.1f %12.1f %6.2f\n", "moto_server (loopback)", writes, p, g, g/p)
	return nil
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Nanoseconds()) / 1000
}
