package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
)

// ownScript is own_script's body: the fence's text, set and read back.
const ownScript = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"

// redisStore is the redis backend: the redis-server at
// $TINYSTORE_REDIS_URL through go-redis v9; the resource is the key, its
// fence at "{<key>}:tinystore-fence", a write a guarded SET of the key to
// the fence's decimal text.
type redisStore struct {
	options  *redis.Options
	client   *redis.Client
	resource string
}

func openRedis(ctx context.Context, resource string) (*redisStore, error) {
	url := os.Getenv("TINYSTORE_REDIS_URL")
	if url == "" {
		return nil, errors.New("TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh")
	}
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	r := &redisStore{options: o, client: redis.NewClient(o), resource: resource}
	if err := r.client.Ping(ctx).Err(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *redisStore) close() { _ = r.client.Close() }

func (r *redisStore) staleResource() string { return r.resource }

func (r *redisStore) write(ctx context.Context, f locks.Fence, _ *string, resource string) error {
	return redisguard.Set(ctx, r.client, resource, f.String(), f)
}

// recorded is GET of the key: the last accepted write's fence text.
func (r *redisStore) recorded(ctx context.Context) (*locks.Fence, string, error) {
	text, err := r.client.Get(ctx, r.resource).Result()
	if errors.Is(err, redis.Nil) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	f, err := locks.ParseFence(text)
	if err != nil {
		return nil, "", fmt.Errorf("the key holds %q: %w", text, err)
	}
	return &f, text, nil
}

func (r *redisStore) corrupt(ctx context.Context) error {
	return r.client.Set(ctx, "{"+r.resource+"}:tinystore-fence", "not-a-fence", 0).Err()
}

// unchanged checks that the server's keys are as they are now.
func (r *redisStore) unchanged(ctx context.Context) (func() error, error) {
	keys := func() ([]string, error) {
		all, err := r.client.Keys(ctx, "*").Result()
		slices.Sort(all)
		return all, err
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
			return fmt.Errorf("a refused write changed the keys: %d keys, then %d", len(before), len(after))
		}
		return nil
	}, nil
}

// driverError tells go-redis's own error: NOPERM's reply for permission,
// a dial's *net.OpError for unavailable.
func (r *redisStore) driverError(kind string, err error) bool {
	var reply redis.Error
	var op *net.OpError
	switch kind {
	case "permission":
		return errors.As(err, &reply) && strings.HasPrefix(reply.Error(), "NOPERM")
	case "unavailable":
		return errors.As(err, &op)
	}
	return false
}

func (r *redisStore) steps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		// The caller's own script behind the check; accepted, its reply is
		// the fence's text.
		"own_script": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			reply, err := redisguard.Script(ctx, r.client, r.resource, ownScript, f, nil, f.String())
			if err == nil && reply != f.String() {
				return fmt.Errorf("the script answered %#v, not %q", reply, f.String())
			}
			return judge(st.expect("expect"), err, f)
		},
		// The write on a client that logs in as a user that may only read.
		"permission": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			if err := r.client.Do(ctx, "ACL", "SETUSER", reader, "on", ">tinystore", "~*", "+@read").Err(); err != nil {
				return err
			}
			o := *r.options
			o.Username, o.Password = reader, "tinystore"
			limited := redis.NewClient(&o)
			defer func() { _ = limited.Close() }()
			return judge(st.expect("expect"), redisguard.Set(ctx, limited, r.resource, f.String(), f), f)
		},
		// The script run on a client of a loopback port nothing listens
		// on, which fails at once rather than retrying.
		"server_gone": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			gone, err := deadEndpoint()
			if err != nil {
				return err
			}
			dead := redis.NewClient(&redis.Options{Addr: strings.TrimPrefix(gone, "http://"), MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
			defer func() { _ = dead.Close() }()
			if err := judge(st.expect("expect"), redisguard.Set(ctx, dead, r.resource, f.String(), f), f); err != nil {
				return err
			}
			if got, _, err := r.recorded(ctx); err != nil || got != nil {
				return fmt.Errorf("after the server was gone the key holds %v (%v)", got, err)
			}
			return nil
		},
	}
}
