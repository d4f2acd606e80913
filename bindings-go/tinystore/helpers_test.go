package tinystore_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/tinystore"
)

// openStore opens an embedded store in a new directory, closed at the end.
func openStore(t testing.TB) *tinystore.Store {
	t.Helper()
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// tinystoreBin is the `tinystore` CLI: $TINYSTORE_BIN (make test sets it),
// else the workspace's debug build.
func tinystoreBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("TINYSTORE_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../target/debug/tinystore")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the tinystore CLI is missing (%v): run `cargo build -p tinystore-cli` or set TINYSTORE_BIN", err)
	}
	return bin
}

// serve starts `tinystore serve DIR` on a new directory, stopped with
// SIGTERM at the end, and returns the directory once the server answers.
func serve(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(tinystoreBin(t), "serve", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tinystore serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("tinystore serve said:\n%s", stderr.String())
		}
	})
	socket := filepath.Join(dir, "tinystore.sock")
	for i := 0; i < 500; i++ {
		select {
		case err := <-exited:
			t.Fatalf("tinystore serve exited early: %v\n%s", err, stderr.String())
		default:
		}
		if store, err := tinystore.Connect("unix:" + socket); err == nil {
			_ = store.Close()
			return dir
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("tinystore serve did not answer on %s", socket)
	return ""
}

// connect connects to the server serving dir, closed at the end.
func connect(t testing.TB, dir string) *tinystore.Store {
	t.Helper()
	store, err := tinystore.Connect("unix:" + filepath.Join(dir, "tinystore.sock"))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// backends runs test against an embedded store and against a store
// reached through a server the test starts.
func backends(t *testing.T, test func(t *testing.T, store *tinystore.Store)) {
	t.Run("embedded", func(t *testing.T) { test(t, openStore(t)) })
	t.Run("served", func(t *testing.T) { test(t, connect(t, serve(t))) })
}

// within fails the test when ch does not close in a generous time; the
// tests assert order, never durations.
func within(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// bg is the background context, named for brevity.
var bg = context.Background()

// hammer runs round rounds times in each of goroutines goroutines, all at
// once, and fails the test at the first error.
func hammer(t *testing.T, goroutines, rounds int, round func() error) {
	t.Helper()
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := round(); err != nil {
					t.Errorf("round %d: %v", r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// occupancy counts the holders inside a critical section and the most
// there were at once.
type occupancy struct {
	mu           sync.Mutex
	inside, most int
}

// visit enters, runs during (under no lock, so another holder may come in
// meanwhile if the lock failed), and leaves.
func (o *occupancy) visit(during func()) {
	o.mu.Lock()
	o.inside++
	o.most = max(o.most, o.inside)
	o.mu.Unlock()
	during()
	o.mu.Lock()
	o.inside--
	o.mu.Unlock()
}
