// Command scheduler in Go: workers campaign in the election "scheduler";
// only the leader runs the job, and it runs it with its term, so a leader
// that paused past its TTL cannot run it after its successor did. See
// ../README.md for the commands, which every language's program shares.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

const commands = "scene, run, lead-and-run"

// args are the command and its `--flag value` pairs.
type args struct {
	command string
	flags   map[string]string
}

func parseArgs(argv []string) (*args, error) {
	a := &args{flags: map[string]string{}}
	for i := 0; i < len(argv); i++ {
		flag, ok := strings.CutPrefix(argv[i], "--")
		if !ok {
			a.command = argv[i]
			continue
		}
		if i+1 >= len(argv) {
			return nil, fmt.Errorf("--%s needs a value", flag)
		}
		i++
		a.flags[flag] = argv[i]
	}
	if a.command == "" {
		return nil, errors.New("a command is required: " + commands)
	}
	for _, needed := range []string{"db", "store"} {
		if a.flags[needed] == "" {
			return nil, fmt.Errorf("--%s is required", needed)
		}
	}
	return a, nil
}

// number is a flag's whole number, or def when the flag is not given.
func (a *args) number(flag string, def int) (int, error) {
	v, ok := a.flags[flag]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("--%s takes a whole number, not %q", flag, v)
	}
	return n, nil
}

// openStore opens a store directory (or reaches it through its socket when
// served), or connects to an address.
func openStore(target string) (*tinystore.Store, error) {
	for _, prefix := range []string{"unix:", "tcp://", "etcd://"} {
		if strings.HasPrefix(target, prefix) {
			return tinystore.Connect(target)
		}
	}
	return tinystore.Open(target)
}

// scene: leader A pauses past its TTL; B leads with a larger term and runs
// the job; A wakes, runs it with its old term, and is refused.
func scene(ctx context.Context, store *tinystore.Store, db *sql.DB, ttl time.Duration) (bool, error) {
	election := store.Election("scheduler")
	a, err := election.Campaign(ctx, "worker-a", locks.TTL(ttl), locks.NoRenew())
	if err != nil {
		return false, err
	}
	fmt.Printf("1. Worker A leads with term %s and pauses past its ttl of %dms.\n", a.Fence, ttl.Milliseconds())
	pause := time.After(2 * ttl)
	var bTerm locks.Fence
	var bChanged int64
	err = election.Lead(ctx, "worker-b", func(ctx context.Context, b *locks.Leadership) error {
		bTerm = b.Fence
		bChanged, err = runJob(ctx, db, b.Value, b.Fence)
		return err
	})
	if err != nil {
		return false, err
	}
	<-pause
	fmt.Printf("2. A's leadership ran out. Worker B leads with term %s and runs the job: %d row changed.\n", bTerm, bChanged)
	aChanged, err := runJob(ctx, db, a.Value, a.Fence)
	if err != nil {
		return false, err
	}
	outcome := "refused, 0 rows changed"
	if aChanged != 0 {
		outcome = "ACCEPTED (the term failed)"
	}
	fmt.Printf("3. A wakes and runs the job with term %s: %s.\n", a.Fence, outcome)
	told := "nothing"
	var e *locks.Error
	if err := a.Resign(ctx); errors.As(err, &e) {
		told = string(e.Code)
	}
	fmt.Printf("4. A learns it no longer leads: %s.\n", told)
	jobs, err := kept(ctx, db)
	fmt.Printf("jobs.db keeps: %s\n", jobs)
	return aChanged == 0 && bChanged == 1 && told == "lease_lost", err
}

// run: `workers` campaign in turn; each leader runs the job `ticks` times
// in its term, then resigns, until `terms` leaders have led: the last one
// gives up the campaigns still waiting (they never lead) before it
// resigns. An observer prints each change of leader.
func run(ctx context.Context, store *tinystore.Store, db *sql.DB, workers, terms, ticks int) (bool, error) {
	election := store.Election("scheduler")
	watchCtx, stopWatching := context.WithCancel(ctx)
	changes, err := election.Observe(watchCtx)
	if err != nil {
		stopWatching()
		return false, err
	}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for leader := range changes {
			if leader == nil {
				fmt.Println("LEADER -")
			} else {
				fmt.Println("LEADER", leader.Value, leader.Fence)
			}
		}
	}()

	campaigns, giveUp := context.WithCancel(ctx)
	stopped := make(chan struct{}, workers) // a worker's goroutine ended
	var mu sync.Mutex
	ran, failed := 0, 0
	var errs []error
	var wg sync.WaitGroup
	for w := 1; w <= workers; w++ {
		wg.Go(func() {
			defer func() { stopped <- struct{}{} }()
			for campaigns.Err() == nil {
				err := election.Lead(campaigns, fmt.Sprintf("worker-%d", w), func(ctx context.Context, l *locks.Leadership) error {
					for range ticks {
						changed, err := runJob(ctx, db, l.Value, l.Fence)
						if err != nil {
							return err
						}
						mu.Lock()
						ran++
						if changed != 1 {
							failed++
						}
						done := ran >= terms*ticks
						mu.Unlock()
						fmt.Println("RAN", l.Value, l.Fence, changed)
						if done {
							// Before resigning: the campaigns waiting are
							// given up, and never lead.
							giveUp()
							for range workers - 1 {
								<-stopped
							}
							return nil
						}
						time.Sleep(10 * time.Millisecond)
					}
					return nil
				})
				if err != nil && campaigns.Err() == nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					giveUp()
				}
			}
		})
	}
	wg.Wait()
	giveUp()
	time.Sleep(50 * time.Millisecond)
	stopWatching()
	<-watched
	jobs, err := kept(ctx, db)
	fmt.Printf("jobs.db keeps: %s\n", jobs)
	return ran == terms*ticks && failed == 0, errors.Join(append(errs, err)...)
}

// leadAndRun, for tests across processes: leads, prints `LEADING <term>`,
// waits for a line on stdin, runs the job (whether or not it still leads:
// the term is what refuses a late run), prints `RAN <rows changed> <term>`,
// then resigns and prints `RESIGNED ok` or `RESIGNED <error code>`.
func leadAndRun(ctx context.Context, store *tinystore.Store, db *sql.DB, value string, ttl time.Duration) error {
	ran := false
	err := store.Election("scheduler", locks.TTL(ttl)).Lead(ctx, value, func(_ context.Context, l *locks.Leadership) error {
		fmt.Println("LEADING", l.Fence)
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		// Not the leadership's ctx: the run goes ahead even when it was
		// lost, and the term refuses it.
		changed, err := runJob(ctx, db, value, l.Fence)
		if err != nil {
			return err
		}
		fmt.Println("RAN", changed, l.Fence)
		ran = true
		return nil
	})
	var e *locks.Error
	switch {
	case err == nil:
		fmt.Println("RESIGNED ok")
	case ran && errors.As(err, &e):
		fmt.Println("RESIGNED", string(e.Code))
	default:
		return err
	}
	return nil
}

func main1(ctx context.Context, argv []string) (bool, error) {
	a, err := parseArgs(argv)
	if err != nil {
		return false, err
	}
	db, err := openDB(ctx, a.flags["db"])
	if err != nil {
		return false, err
	}
	defer func() { _ = db.Close() }()
	store, err := openStore(a.flags["store"])
	if err != nil {
		return false, err
	}
	defer func() { _ = store.Close() }()
	switch a.command {
	case "scene":
		ttl, err := a.number("ttl-ms", 300)
		if err != nil {
			return false, err
		}
		return scene(ctx, store, db, time.Duration(ttl)*time.Millisecond)
	case "run":
		workers, err1 := a.number("workers", 3)
		terms, err2 := a.number("terms", 5)
		ticks, err3 := a.number("ticks", 2)
		if err := errors.Join(err1, err2, err3); err != nil {
			return false, err
		}
		return run(ctx, store, db, workers, terms, ticks)
	case "lead-and-run":
		ttl, err := a.number("ttl-ms", 15_000)
		if err != nil {
			return false, err
		}
		value := a.flags["value"]
		if value == "" {
			value = "go"
		}
		return true, leadAndRun(ctx, store, db, value, time.Duration(ttl)*time.Millisecond)
	}
	return false, fmt.Errorf("unknown command %q: %s", a.command, commands)
}

func main() {
	ok, err := main1(context.Background(), os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "scheduler: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}
