// Command bench-languages-go is the Go row of `make bench-languages`
// (bench/languages/run.py).
//
// Usage: bench-languages-go SOCKET REDIS_ADDR SECONDS
//
// tinystore through `tinystore serve` (Locks.Hold) beside go-redsync v4 on
// go-redis v9 (Mutex.LockContext, UnlockContext), each at 1 and 64
// goroutines on 1,000 random keys for SECONDS. One client per process,
// shared by its goroutines, as a program would: one Connect'ed store; one
// go-redis client (its pool). Prints one JSON line per row, with the cgo
// calls per pair (runtime.NumCgoCall).
//
// For profiling one row: BENCH_ONLY=tinystore:64 runs only that row, and
// BENCH_CPUPROFILE=FILE writes its pprof CPU profile.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

const keys = 1000
const ttl = 15 * time.Second

var holderCounts = []int{1, 64}

type row struct {
	Language   string  `json:"language"`
	Variant    string  `json:"variant"`
	System     string  `json:"system"`
	Lock       string  `json:"lock"`
	Holders    int     `json:"holders"`
	Pairs      int     `json:"pairs"`
	PairsPerS  float64 `json:"pairs_per_sec"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
	CgoPerPair float64 `json:"cgo_calls_per_pair"`
}

// drive runs holders goroutines calling pair(key) for secs; every pair's latency.
func drive(pair func(string) error, holders int, secs float64) ([]time.Duration, float64) {
	var mu sync.Mutex
	var all []time.Duration
	start := time.Now()
	deadline := start.Add(time.Duration(secs * float64(time.Second)))
	var wg sync.WaitGroup
	for i := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			var mine []time.Duration
			for {
				t0 := time.Now()
				if !t0.Before(deadline) {
					break
				}
				if err := pair("k" + strconv.Itoa(rng.IntN(keys))); err != nil {
					fmt.Fprintln(os.Stderr, "pair failed:", err)
					os.Exit(1)
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, time.Since(start).Seconds()
}

func at(lat []time.Duration, p float64) float64 {
	if len(lat) == 0 {
		return 0
	}
	i := int(float64(len(lat)-1)*p + 0.5)
	return float64(lat[i].Nanoseconds()) / 1000
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: bench-languages-go SOCKET REDIS_ADDR SECONDS")
		os.Exit(2)
	}
	socket, addr := os.Args[1], os.Args[2]
	secs, err := strconv.ParseFloat(os.Args[3], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "SECONDS:", err)
		os.Exit(2)
	}
	ctx := context.Background()

	store, err := tinystore.Connect(socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer store.Close()
	group := store.Locks("bench", locks.TTL(ttl))
	tsPair := func(key string) error {
		return group.Hold(ctx, key, func(context.Context, *locks.Lease) error { return nil })
	}

	client := goredislib.NewClient(&goredislib.Options{Addr: addr})
	defer client.Close()
	rs := redsync.New(goredis.NewPool(client))
	// A waiting Lock retries every 1 ms, as the other languages' Redis locks
	// here (redsync's default is a random 50 to 250 ms, 32 tries).
	redisPair := func(key string) error {
		m := rs.NewMutex(key, redsync.WithExpiry(ttl), redsync.WithRetryDelay(time.Millisecond), redsync.WithTries(1<<30))
		if err := m.LockContext(ctx); err != nil {
			return err
		}
		_, err := m.UnlockContext(ctx)
		return err
	}

	only := os.Getenv("BENCH_ONLY")
	enc := json.NewEncoder(os.Stdout)
	for _, holders := range holderCounts {
		for _, s := range []struct {
			system, lock string
			pair         func(string) error
		}{
			{"tinystore", "Locks.Hold", tsPair},
			{"redis", "go-redsync v4 on go-redis v9", redisPair},
		} {
			if only != "" && only != s.system+":"+strconv.Itoa(holders) {
				continue
			}
			if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
				f, err := os.Create(path)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				_ = pprof.StartCPUProfile(f)
			}
			cgo0 := runtime.NumCgoCall()
			lat, took := drive(s.pair, holders, secs)
			cgo := runtime.NumCgoCall() - cgo0
			if os.Getenv("BENCH_CPUPROFILE") != "" {
				pprof.StopCPUProfile()
			}
			slices.Sort(lat)
			_ = enc.Encode(row{
				Language: "Go", Variant: "goroutines", System: s.system, Lock: s.lock,
				Holders: holders, Pairs: len(lat), PairsPerS: float64(len(lat)) / took,
				P50us: at(lat, 0.5), P99us: at(lat, 0.99),
				CgoPerPair: float64(cgo) / float64(max(len(lat), 1)),
			})
		}
	}
}
