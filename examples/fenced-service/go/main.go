// Command fenced-service-worker-go is the fenced-service example's Go
// worker: it holds key N of the lock group "summaries" (renew on), then
// posts its summary to the service with its lease's fence in the
// Tinystore-Fence header, attached by guard.Transport.
//
//	fenced-service-worker-go --store ADDRESS --service URL --chat N --ttl-ms T
//
// Prints HELD <fence>; waits for a line on stdin; POSTs "summary by go" to
// URL/chats/N/summary and prints POSTED <status> <fence>; releases and
// prints RELEASED ok (or RELEASED <code> when the lease was lost
// meanwhile); exits 0. `make fenced-service-worker-go` builds it as
// $(CARGO_TARGET_DIR)/fenced-service-worker-go.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

func main() {
	address := flag.String("store", "", "the server's address, unix:DIR/tinystore.sock")
	service := flag.String("service", "", "the service's URL, http://HOST:PORT")
	chat := flag.Int("chat", -1, "the chat whose key to hold and whose summary to post")
	ttlMS := flag.Int("ttl-ms", 0, "the lease's TTL in milliseconds")
	flag.Parse()
	if *address == "" || *service == "" || *chat < 0 || *ttlMS <= 0 {
		fmt.Fprintln(os.Stderr, "usage: fenced-service-worker-go --store ADDRESS --service URL --chat N --ttl-ms T")
		os.Exit(2)
	}
	if err := run(*address, *service, strconv.Itoa(*chat), time.Duration(*ttlMS)*time.Millisecond); err != nil {
		fmt.Fprintln(os.Stderr, "fenced-service-worker-go:", err)
		os.Exit(1)
	}
}

func run(address, service, chat string, ttl time.Duration) error {
	ctx := context.Background()
	store, err := tinystore.Connect(address)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	lease, err := store.Locks("summaries", locks.TTL(ttl)).Acquire(ctx, chat)
	if err != nil {
		return err
	}
	fmt.Printf("HELD %s\n", lease.Fence)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	status, err := post(service+"/chats/"+chat+"/summary", lease.Fence)
	if err != nil {
		return err
	}
	fmt.Printf("POSTED %d %s\n", status, lease.Fence)
	var e *locks.Error
	switch err := lease.Release(ctx); {
	case err == nil:
		fmt.Println("RELEASED ok")
	case errors.As(err, &e):
		fmt.Printf("RELEASED %s\n", string(e.Code))
	default:
		return err
	}
	return nil
}

// post sends the summary with the fence attached by guard.Transport and
// gives the answer's status.
func post(url string, fence locks.Fence) (int, error) {
	client := &http.Client{Transport: &guard.Transport{Fence: fence}, Timeout: 30 * time.Second}
	resp, err := client.Post(url, "text/plain; charset=utf-8", strings.NewReader("summary by go"))
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
