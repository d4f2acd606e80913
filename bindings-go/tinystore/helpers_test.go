package tinystore_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// A server is a `tinystore serve` the test started.
type server struct {
	dir     string
	tcp     string // "tcp://HOST:PORT" (or "tls://HOST:PORT") when it listens on TCP
	process *os.Process
	// stop sends SIGTERM (once) and gives how the process exited and
	// everything it printed on stderr.
	stop func() (error, string)
}

// serve starts `tinystore serve DIR args...` on a new directory, stopped
// with SIGTERM at the end, and returns once it said where it listens.
func serve(t testing.TB, args ...string) server {
	t.Helper()
	return serveWith(t, tinystoreBin(t), args...)
}

// serveWith is serve with the command at bin.
func serveWith(t testing.TB, bin string, args ...string) server {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin, append([]string{"serve", dir}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tinystore serve: %v", err)
	}
	var said strings.Builder
	var mu sync.Mutex
	var waited error
	serving := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			mu.Lock()
			said.WriteString(lines.Text() + "\n")
			mu.Unlock()
			if strings.Contains(lines.Text(), "serving") {
				serving <- lines.Text()
			}
		}
		waited = cmd.Wait()
	}()
	stop := sync.OnceValues(func() (error, string) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		mu.Lock()
		defer mu.Unlock()
		return waited, said.String()
	})
	t.Cleanup(func() {
		if _, said := stop(); t.Failed() {
			t.Logf("tinystore serve said:\n%s", said)
		}
	})
	select {
	case line := <-serving:
		s := server{dir: dir, process: cmd.Process, stop: stop}
		for _, scheme := range []string{"tcp://", "tls://"} {
			if at := strings.Index(line, scheme); at >= 0 {
				s.tcp = strings.Fields(line[at:])[0]
			}
		}
		return s
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("tinystore serve exited early:\n%s", said.String())
	case <-time.After(20 * time.Second):
		t.Fatal("tinystore serve did not say it was serving")
	}
	return server{}
}

// connect connects to the server on its Unix socket, closed at the end.
func connect(t testing.TB, s server) *tinystore.Store {
	t.Helper()
	store, err := tinystore.Connect("unix:" + filepath.Join(s.dir, "tinystore.sock"))
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
