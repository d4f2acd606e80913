package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
	"tinystore.dev/go/tinystore"
)

// objectWriter writes KEY of BUCKET through the S3 guard.
type objectWriter struct {
	client      *s3.Client
	bucket, key string
	name        string
}

// newObjectWriter is the writer of s3://BUCKET/KEY on the server at
// $TINYSTORE_S3_URL, path-style, with the credentials of the environment
// (any key on moto's server).
func newObjectWriter(dsn, name string) (*objectWriter, error) {
	bucket, key, ok := strings.Cut(strings.TrimPrefix(dsn, "s3://"), "/")
	if !ok || bucket == "" || key == "" {
		return nil, fmt.Errorf("--db %q: want s3://BUCKET/KEY", dsn)
	}
	endpoint := os.Getenv("TINYSTORE_S3_URL")
	if endpoint == "" {
		return nil, errors.New("--db s3://... needs TINYSTORE_S3_URL, the server's address")
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	client := s3.NewFromConfig(aws.Config{
		Region: region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret}, nil
		}),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
	return &objectWriter{client: client, bucket: bucket, key: key, name: name}, nil
}

// write puts {"fence": ..., "writer": NAME} through the guard (the object
// of its fence, under KEY/tinystore-fence/; s3guard.Get reads the
// largest): ACCEPTED when written, REFUSED when stale.
func (w *objectWriter) write(ctx context.Context, fence locks.Fence) {
	body, err := json.Marshal(map[string]string{"fence": fence.String(), "writer": w.name})
	if err != nil {
		report(err)
		return
	}
	_, err = s3guard.Put(ctx, w.client, w.bucket, w.key, body, fence, s3guard.ContentType("application/json"))
	var stale *tinystore.StaleError
	switch {
	case errors.As(err, &stale):
		fmt.Printf("REFUSED %s %s\n", fence, stale.Largest)
	case err != nil:
		report(err)
	default:
		fmt.Printf("ACCEPTED %s\n", fence)
	}
}
