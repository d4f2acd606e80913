package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
	"tinystore.dev/go/tinystore"
)

// logged is the script each redis write runs behind the check: it logs
// "<fence as 40 digits> NAME" and sets the key to the fence's digits.
const logged = "redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2]) redis.call('SET', KEYS[1], ARGV[1]) return 1"

// redisWriter writes resource through the Redis guard on the server of
// its redis:// URL, logging each accepted write in the same script.
type redisWriter struct {
	client *redis.Client
	name   string
}

func newRedisWriter(url, name string) (*redisWriter, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--db %q: %w", url, err)
	}
	return &redisWriter{client: redis.NewClient(o), name: name}, nil
}

// write runs the logging script behind the check: ACCEPTED when it ran,
// REFUSED when stale.
func (w *redisWriter) write(ctx context.Context, fence locks.Fence) {
	digits := fmt.Sprintf("%040s", fence)
	_, err := redisguard.Script(ctx, w.client, resource, logged, fence, []string{"{" + resource + "}:log"}, digits, w.name)
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
