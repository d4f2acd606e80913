// Command chat-summaries in Go: summary workers that hold `summaries` for
// a chat and save with the fenced conditional update. See ../README.md for
// the commands, which every language's program shares.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

const commands = "migrate, work, scene, hold-and-save, torture, fences"

type args struct {
	db, store, command string
	flags              map[string]string
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
		switch flag {
		case "db":
			a.db = argv[i]
		case "store":
			a.store = argv[i]
		default:
			a.flags[flag] = argv[i]
		}
	}
	if a.command == "" {
		return nil, errors.New("a command is required: " + commands)
	}
	return a, nil
}

// number is a flag's whole number, or def when the flag is not given.
func (a *args) number(flag string, def int64) (int64, error) {
	v, ok := a.flags[flag]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s takes a whole number, not %q", flag, v)
	}
	return n, nil
}

// millis is a flag's number of milliseconds as a duration.
func (a *args) millis(flag string, def int64) (time.Duration, error) {
	n, err := a.number(flag, def)
	return time.Duration(n) * time.Millisecond, err
}

// openStore opens a store directory (or reaches it through its socket when
// served), or connects to an address.
func openStore(target string) (*tinystore.Store, error) {
	for _, p := range []string{"unix:", "tcp://", "tls://", "etcd://"} {
		if strings.HasPrefix(target, p) {
			return tinystore.Connect(target)
		}
	}
	return tinystore.Open(target)
}

// text is the fence's 40-digit text, as docs/fences.md writes it.
func text(f locks.Fence) string { return fmt.Sprintf("%040s", f) }

func summarize(history []string, by string) string {
	return fmt.Sprintf("%d messages, summarized by %s", len(history), by)
}

func work(ctx context.Context, a *args, store *tinystore.Store) error {
	chats, err1 := a.number("chats", 5)
	workers, err2 := a.number("workers", 3)
	rounds, err3 := a.number("rounds", 2)
	if err := errors.Join(err1, err2, err3); err != nil {
		return err
	}
	db, err := openDB(ctx, a.db)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if err := seed(ctx, db, chats); err != nil {
		return err
	}
	summaries := store.Locks("summaries")
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for round := range rounds {
				for chat := int64(1); chat <= chats; chat++ {
					err := summaries.Hold(ctx, chat, func(ctx context.Context, lease *locks.Lease) error {
						messages, err := history(ctx, db, chat)
						if err != nil {
							return err
						}
						changed, err := save(ctx, db, chat, summarize(messages, fmt.Sprintf("worker %d", w)), text(lease.Fence))
						if err != nil {
							return err
						}
						fmt.Printf("worker %d round %d chat %d: fence %s saved %d\n", w, round, chat, lease.Fence, changed)
						return nil
					})
					if err != nil {
						errs[w] = err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func scene(ctx context.Context, a *args, store *tinystore.Store) (bool, error) {
	db, err := openDB(ctx, a.db)
	if err != nil {
		return false, err
	}
	defer func() { _ = db.Close() }()
	if _, err := db.ExecContext(ctx, "insert into chats (id, title) values (42, 'chat 42') on conflict do nothing"); err != nil {
		return false, err
	}
	guarded, err := a.guarded()
	if err != nil {
		return false, err
	}
	ttl, err := a.millis("ttl-ms", 300)
	if err != nil {
		return false, err
	}
	summaries := store.Locks("summaries")
	leaseA, err := summaries.Acquire(ctx, 42, locks.TTL(ttl), locks.NoRenew())
	if err != nil {
		return false, err
	}
	fmt.Printf("1. Worker A holds chat 42 with fence %s and pauses past its ttl of %s.\n", leaseA.Fence, ttl)
	var fenceB locks.Fence
	var changedB int64
	done := make(chan error, 1)
	go func() {
		done <- summaries.Hold(ctx, 42, func(ctx context.Context, lease *locks.Lease) error {
			fenceB = lease.Fence
			var changed int64
			var err error
			if guarded {
				changed, err = saveGuarded(ctx, db, 42, "summary by B", lease.Fence)
			} else {
				changed, err = save(ctx, db, 42, "summary by B", text(lease.Fence))
			}
			changedB = changed
			return err
		})
	}()
	time.Sleep(2 * ttl)
	if err := <-done; err != nil {
		return false, err
	}
	fmt.Printf("2. A's lease ran out. Worker B holds chat 42 with fence %s and saves: %d row changed.\n", fenceB, changedB)
	if guarded {
		return sceneGuarded(ctx, db, leaseA.Fence, fenceB, changedB)
	}
	changedA, err := save(ctx, db, 42, "summary by A", text(leaseA.Fence))
	if err != nil {
		return false, err
	}
	outcome := "refused, 0 rows changed"
	if changedA != 0 {
		outcome = "ACCEPTED (the fence failed)"
	}
	fmt.Printf("3. A wakes and saves with fence %s: %s.\n", leaseA.Fence, outcome)
	summary, fence, err := kept(ctx, db, 42)
	if err != nil {
		return false, err
	}
	fmt.Printf("chat.db keeps: %q with fence %s\n", summary, fence)
	return changedA == 0 && changedB == 1, nil
}

// sceneGuarded is step 3 of the scene with --save guard: A's late save,
// the update and the guard's check in one transaction, is refused with
// stale and rolled back.
func sceneGuarded(ctx context.Context, db *sql.DB, fenceA, fenceB locks.Fence, changedB int64) (bool, error) {
	_, err := saveGuarded(ctx, db, 42, "summary by A", fenceA)
	var stale *tinystore.StaleError
	refused := errors.As(err, &stale)
	switch {
	case refused:
		fmt.Printf("3. A wakes and saves with fence %s: the guard refused it with stale: fence %s is below fence %s, recorded for %s; A's update rolled back with it.\n",
			fenceA, stale.Fence, stale.Largest, stale.Resource)
	case err != nil:
		return false, err
	default:
		fmt.Printf("3. A wakes and saves with fence %s: ACCEPTED (the guard failed).\n", fenceA)
	}
	largest, err := recorded(ctx, db, 42)
	if err != nil {
		return false, err
	}
	summary, _, err := kept(ctx, db, 42)
	if err != nil {
		return false, err
	}
	fmt.Printf("tinystore_fences keeps the largest fence that wrote chats/42: %s\n", largest)
	fmt.Printf("chat.db keeps: %q\n", summary)
	return refused && changedB == 1 && largest == text(fenceB), nil
}

// guarded is whether --save is guard (the update plus the guard's check in
// one transaction) rather than column (the default: the fenced update of
// docs/fences.md).
func (a *args) guarded() (bool, error) {
	switch v := a.flags["save"]; v {
	case "", "column":
		return false, nil
	case "guard":
		return true, nil
	default:
		return false, fmt.Errorf("--save takes column or guard, not %q", v)
	}
}

func holdAndSave(ctx context.Context, a *args, store *tinystore.Store) error {
	chat, err := a.number("chat", 42)
	if err != nil {
		return err
	}
	ttl, err := a.millis("ttl-ms", 15_000)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, a.db)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if _, err := db.ExecContext(ctx, q("insert into chats (id, title) values (?, 'chat') on conflict do nothing"), chat); err != nil {
		return err
	}
	guarded, err := a.guarded()
	if err != nil {
		return err
	}
	name := a.flags["name"]
	if name == "" {
		name = "summaries"
	}
	saved := false
	err = store.Locks(name).Hold(ctx, chat, func(ctx context.Context, lease *locks.Lease) error {
		fmt.Printf("HELD %s\n", lease.Fence)
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		// Saved whether or not the lease is still held (a lost lease
		// cancels ctx): the fence is what refuses a late write.
		ctx = context.WithoutCancel(ctx)
		var changed int64
		var err error
		var stale *tinystore.StaleError
		if guarded {
			changed, err = saveGuarded(ctx, db, chat, "summary by go", lease.Fence)
			if errors.As(err, &stale) {
				err = nil // SAVED 0: refused as stale
			}
		} else {
			changed, err = save(ctx, db, chat, "summary by go", text(lease.Fence))
		}
		if err != nil {
			return err
		}
		fmt.Printf("SAVED %d %s\n", changed, lease.Fence)
		saved = true
		return nil
	}, locks.TTL(ttl))
	var lerr *locks.Error
	switch {
	case err == nil:
		fmt.Println("RELEASED ok")
	case saved && errors.As(err, &lerr):
		fmt.Printf("RELEASED %s\n", string(lerr.Code))
	default:
		return err
	}
	return nil
}

func run(ctx context.Context, argv []string) (bool, error) {
	a, err := parseArgs(argv)
	if err != nil {
		return false, err
	}
	if a.command == "fences" {
		return true, fences(a)
	}
	if a.db == "" || a.store == "" {
		return false, errors.New("--db PATH|postgresql://URL and --store DIR|ADDRESS are required")
	}
	db, err := openDB(ctx, a.db)
	if err != nil {
		return false, err
	}
	_ = db.Close()
	if a.command == "migrate" {
		fmt.Printf("migrated %s\n", a.db)
		return true, nil
	}
	store, err := openStore(a.store)
	if err != nil {
		return false, err
	}
	defer func() { _ = store.Close() }()
	switch a.command {
	case "work":
		return true, work(ctx, a, store)
	case "scene":
		return scene(ctx, a, store)
	case "hold-and-save":
		return true, holdAndSave(ctx, a, store)
	case "torture":
		chats, err1 := a.number("chats", 4)
		seconds, err2 := a.number("seconds", 10)
		ttl, err3 := a.millis("ttl-ms", 300)
		pause, err4 := a.millis("pause-ms", 20)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return false, err
		}
		worker := a.flags["worker"]
		if worker == "" {
			worker = "go"
		}
		t, err := runTorture(ctx, store, a.db, worker, chats, seconds, ttl, pause, a.flags["ways"] == "all")
		if err != nil {
			return false, err
		}
		fmt.Printf("DONE saves=%d lost=%d errors=%d ways=%d\n", t.saves, t.lost, t.errors, t.ways)
		return true, nil
	}
	return false, fmt.Errorf("unknown command %q: %s", a.command, commands)
}

func main() {
	ok, err := run(context.Background(), os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "chat-summaries: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}
