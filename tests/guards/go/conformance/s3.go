package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/s3guard"
)

var buckets atomic.Int64

// key is a scenario's object: "r" in its bucket.
const key = "r"

// s3Store is the s3 backend: moto's server at $TINYSTORE_S3_URL through
// aws-sdk-go-v2, path style, a bucket per scenario.
type s3Store struct {
	client   *s3.Client
	bucket   string
	resource string // the cell's resource, which names the key "r"
}

func s3Client(endpoint string, attempts int) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
		if attempts > 0 {
			o.RetryMaxAttempts = attempts
		}
	})
}

func openS3(ctx context.Context, scenario, resource string) (*s3Store, error) {
	endpoint := os.Getenv("TINYSTORE_S3_URL")
	if endpoint == "" {
		return nil, errors.New("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
	}
	s := &s3Store{
		client:   s3Client(endpoint, 0),
		resource: resource,
		bucket:   fmt.Sprintf("matrix-go-%d-%d-%s", os.Getpid(), buckets.Add(1), strings.ReplaceAll(scenario, "_", "-")),
	}
	if len(s.bucket) > 63 {
		s.bucket = s.bucket[:63]
	}
	s.bucket = strings.TrimRight(s.bucket, "-")
	if _, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *s3Store) close() {}

func (s *s3Store) staleResource() string { return s.bucket + "/" + key }

// bodyOf is the body a write puts: the step's, or one naming the fence.
func bodyOf(f locks.Fence, body *string) []byte {
	if body != nil {
		return []byte(*body)
	}
	return []byte("written with fence " + f.String())
}

// write is a guarded put; resource is the key (bad_resource gives bad
// ones), "r" when it is the runner's own.
func (s *s3Store) write(ctx context.Context, f locks.Fence, body *string, resource string) error {
	return s.writeWith(ctx, s.client, f, body, s.keyOf(resource))
}

func (s *s3Store) keyOf(resource string) string {
	if resource == s.resource {
		return key
	}
	return resource
}

func (s *s3Store) writeWith(ctx context.Context, client s3guard.Client, f locks.Fence, body *string, k string) error {
	_, err := s3guard.Put(ctx, client, s.bucket, k, bodyOf(f, body), f)
	return err
}

func (s *s3Store) recorded(ctx context.Context) (*locks.Fence, string, error) {
	obj, err := s3guard.Get(ctx, s.client, s.bucket, key)
	if err != nil || obj == nil {
		return nil, "", err
	}
	return &obj.Fence, string(obj.Body), nil
}

func (s *s3Store) corrupt(ctx context.Context) error {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key + "/tinystore-fence/not-a-fence"), Body: strings.NewReader("hand-made"),
	})
	return err
}

// unchanged checks that the bucket's keys are as they are now.
func (s *s3Store) unchanged(ctx context.Context) (func() error, error) {
	keys := func() ([]string, error) {
		var all []string
		pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, o := range page.Contents {
				all = append(all, aws.ToString(o.Key))
			}
		}
		slices.Sort(all)
		return all, nil
	}
	before, err := keys()
	if err != nil {
		return nil, err
	}
	return func() error {
		after, err := keys()
		if err != nil {
			return err
		}
		if !slices.Equal(before, after) {
			return fmt.Errorf("a refused write changed the bucket: %v, then %v", before, after)
		}
		return nil
	}, nil
}

// driverError tells the SDK's own error: unavailable is a request that
// never got an answer (a refused connection).
func (s *s3Store) driverError(kind string, err error) bool {
	var op *smithy.OperationError
	var refused *net.OpError
	return kind == "unavailable" && errors.As(err, &op) && errors.As(err, &refused)
}

// paused is a client whose first request is made and answered, then
// between runs (a real second writer), then every later request goes on
// as made by next.
type paused struct {
	s3guard.Client
	next    s3guard.Client
	calls   int
	between func()
}

func (p *paused) turn() s3guard.Client {
	p.calls++
	if p.calls == 1 {
		return p.Client
	}
	if p.calls == 2 && p.between != nil {
		p.between()
	}
	return p.next
}

func (p *paused) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, o ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return p.turn().ListObjectsV2(ctx, in, o...)
}

func (p *paused) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	return p.turn().PutObject(ctx, in, o...)
}

func (p *paused) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return p.turn().DeleteObject(ctx, in, o...)
}

func (p *paused) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return p.turn().GetObject(ctx, in, o...)
}

func (s *s3Store) steps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		"delete": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			_, err = s3guard.Delete(ctx, s.client, s.bucket, key, f)
			return judge(st.expect("expect"), err, f)
		},
		// The write paused after its first request (its listing) while the
		// writers of "between" write from start to end on the real client.
		"race": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			var between []args
			if err := json.Unmarshal(a.Between, &between); err != nil {
				return fmt.Errorf("between: %w", err)
			}
			var failed error
			p := &paused{Client: s.client, next: s.client, between: func() {
				for _, w := range between {
					g, err := parse(w.Fence)
					if err == nil {
						err = judge(st.expect("expect_between"), s.write(ctx, g, w.Body, key), g)
					}
					if err != nil && failed == nil {
						failed = fmt.Errorf("the writer between, fence %s: %w", w.Fence, err)
					}
				}
			}}
			outcome := s.writeWith(ctx, p, f, a.Body, key)
			if failed != nil {
				return failed
			}
			if p.calls < 2 {
				return fmt.Errorf("the write made %d requests: it was never paused", p.calls)
			}
			return judge(st.expect("expect"), outcome, f)
		},
		// The first request on the real client; every later one on a
		// client of the same SDK whose endpoint nothing listens on.
		"server_gone": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			gone, err := deadEndpoint()
			if err != nil {
				return err
			}
			p := &paused{Client: s.client, next: s3Client(gone, 1)}
			if err := judge(st.expect("expect"), s.writeWith(ctx, p, f, nil, key), f); err != nil {
				return err
			}
			if got, _, err := s.recorded(ctx); err != nil || got != nil {
				return fmt.Errorf("after the store was gone it holds %v (%v)", got, err)
			}
			return nil
		},
	}
}

// deadEndpoint is the address of a loopback port nothing listens on.
func deadEndpoint() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	address := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return "http://" + address, nil
}
