package tinystore_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// freePort is a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEtcd starts a single-member etcd in a temp dir, stopped at the end,
// and returns its client address HOST:PORT once it says it is healthy. A
// port taken between freePort and etcd's bind is tried again with others.
func startEtcd(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatalf("etcd not found (%v): apt-get install etcd-server (make test-go installs it)", err)
	}
	for attempt := 1; ; attempt++ {
		client, said, err := tryEtcd(t, bin)
		if err == nil {
			return client
		}
		if attempt == 3 || !strings.Contains(said, "address already in use") {
			t.Fatalf("etcd exited (%v): %s", err, said)
		}
	}
}

// tryEtcd starts etcd on two ports free a moment ago; it returns its client
// address once healthy, or what it said when it exited.
func tryEtcd(t *testing.T, bin string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	client := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	c, p := "http://"+client, fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--name", "t", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", c, "--advertise-client-urls", c,
		"--listen-peer-urls", p, "--initial-advertise-peer-urls", p,
		"--initial-cluster", "t="+p)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		_ = log.Close()
	})
	httpc := http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			exited <- err
			said, _ := os.ReadFile(filepath.Join(dir, "etcd.log"))
			if err == nil {
				err = fmt.Errorf("etcd stopped")
			}
			return "", string(said), err
		default:
		}
		if resp, err := httpc.Get(c + "/health"); err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if strings.Contains(string(body), `"health":"true"`) {
				return client, "", nil
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("etcd did not become healthy in 20 s")
		}
	}
}

func TestLocksAndASemaphoreOnARealEtcd(t *testing.T) {
	store, err := tinystore.Connect("etcd://" + startEtcd(t) + "/test-go")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer store.Close()
	jobs := store.Locks("jobs")

	first, err := jobs.Acquire(bg, "k")
	if err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	if _, ok, err := jobs.TryAcquire(bg, "k"); ok || err != nil {
		t.Fatalf("try_acquire while held: ok=%v err=%v; want none", ok, err)
	}
	if err := first.Release(bg); err != nil {
		t.Fatal(err)
	}
	if first.Held() {
		t.Fatal("the released lease says it is held")
	}
	second, err := jobs.Acquire(bg, "k", locks.Wait(5*time.Second))
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if !first.Fence.Less(second.Fence) {
		t.Fatalf("fences %v then %v: not increasing", first.Fence, second.Fence)
	}
	if err := second.Release(bg); err != nil {
		t.Fatal(err)
	}
	third, ok, err := jobs.TryAcquire(bg, "k")
	if err != nil || !ok {
		t.Fatalf("try_acquire of the free key: ok=%v err=%v", ok, err)
	}
	if !second.Fence.Less(third.Fence) {
		t.Fatalf("fences %v then %v: not increasing", second.Fence, third.Fence)
	}
	_ = third.Release(bg)

	exports := store.Semaphore("exports", 1)
	permit, err := exports.Acquire(bg, "daily")
	if err != nil || !permit.Held() {
		t.Fatalf("permit: %v", err)
	}
	if _, ok, err := exports.TryAcquire(bg, "daily"); ok || err != nil {
		t.Fatalf("a second permit of limit 1: ok=%v err=%v; want none", ok, err)
	}
	if err := permit.Release(bg); err != nil {
		t.Fatal(err)
	}
	again, ok, err := exports.TryAcquire(bg, "daily")
	if err != nil || !ok {
		t.Fatalf("a permit after release: ok=%v err=%v", ok, err)
	}
	_ = again.Release(bg)
}

func TestAnElectionOnARealEtcd(t *testing.T) {
	store, err := tinystore.Connect("etcd://" + startEtcd(t) + "/test-go")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer store.Close()
	leadersInTurn(t, store.Election("scheduler", locks.Wait(20*time.Second)))
}
