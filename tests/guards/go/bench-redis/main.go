// Command bench-redis measures the Redis guard's cost per write on the
// redis-server at $TINYSTORE_REDIS_URL (loopback, from
// tests/guards/with-redis.sh): a plain SET against redisguard.Set (one
// EVALSHA of the guard's script: the check, the write, the record) and
// against redisguard.Script with the same SET as a body of yours behind
// the check, of the same small value, on one go-redis v9 client. The
// three take turns sample by sample (a sample is --writes writes of one
// kind), so that a noisy machine weighs on each alike, after one sample
// of each as warm-up (the scripts are loaded). It prints the median µs
// per write of each and the ratios, as core/benches/guard_redis.rs and
// bindings-python/bench/guard_redis.py do.
//
//	make bench-guards-redis-go
//	go run ./bench-redis (in tests/guards/go, under with-redis.sh) --samples 9 --writes 2000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
)

const body = "return redis.call('SET', KEYS[1], ARGV[1])"

// The kinds of write.
const (
	plain = iota
	guarded
	script
	kinds
)

func main() {
	samples := flag.Int("samples", 9, "samples of each kind")
	writes := flag.Int("writes", 2000, "writes per sample")
	flag.Parse()
	if err := run(*samples, *writes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-redis:", err)
		os.Exit(1)
	}
}

func run(samples, writes int) error {
	url := os.Getenv("TINYSTORE_REDIS_URL")
	if url == "" {
		return errors.New("TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh (make bench-guards-redis-go)")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	ctx := context.Background()
	client := redis.NewClient(opts)
	defer func() { _ = client.Close() }()
	if err := client.Del(ctx, "bench:plain", "bench:guarded", "bench:script").Err(); err != nil {
		return err
	}
	server, err := client.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	var n uint64
	sample := func(kind int) (float64, error) {
		start := time.Now()
		for range writes {
			n++
			value := fmt.Sprintf("summary %d", n)
			fence := locks.Fence{Count: n}
			var err error
			switch kind {
			case plain:
				err = client.Set(ctx, "bench:plain", value, 0).Err()
			case guarded:
				err = redisguard.Set(ctx, client, "bench:guarded", value, fence)
			case script:
				_, err = redisguard.Script(ctx, client, "bench:script", body, fence, nil, value)
			}
			if err != nil {
				return 0, err
			}
		}
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(writes), nil
	}
	var took [kinds][]float64
	for round := 0; round <= samples; round++ {
		for kind := range kinds {
			us, err := sample(kind)
			if err != nil {
				return err
			}
			if round > 0 { // the first round warms up, unmeasured
				took[kind] = append(took[kind], us)
			}
		}
	}
	p, g, s := median(took[plain]), median(took[guarded]), median(took[script])
	fmt.Printf("go-redis %s (one client) on redis-server %s, median of %d samples of %d writes\n",
		module("github.com/redis/go-redis/v9"), field(server, "redis_version"), samples, writes)
	fmt.Println("| each write | µs per write | over a plain SET |")
	fmt.Println("| --- | ---: | ---: |")
	fmt.Printf("| a plain `Set` | %.1f | 1.00x |\n", p)
	fmt.Printf("| `redisguard.Set` | %.1f | %.2fx |\n", g, g/p)
	fmt.Printf("| `redisguard.Script` (a `SET` in your body) | %.1f | %.2fx |\n", s, s/p)
	return nil
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// field is name's value in an INFO reply.
func field(info, name string) string {
	var value string
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			value = strings.TrimSpace(v)
		}
	}
	return value
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
