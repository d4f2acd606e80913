// Command conformance is Go's runner of the guard's conformance matrix
// (vectors/guards.json): every scenario on every backend it names,
// through the package's public guard API (tinystore.dev/go/guard,
// tinystore.dev/go/s3guard, tinystore.dev/go/redisguard,
// tinystore.dev/go/dynamoguard, tinystore.dev/go/gcsguard and
// tinystore.dev/go/azureguard) against real servers: a SQLite file
// (modernc.org/sqlite), the PostgreSQL at
// $TINYSTORE_PG_URL (pgx through database/sql), the MariaDB at
// $TINYSTORE_MYSQL_URL (go-sql-driver/mysql through database/sql, a
// database per scenario), moto's S3 at
// $TINYSTORE_S3_URL (aws-sdk-go-v2, path style, a bucket per scenario),
// the redis-server at $TINYSTORE_REDIS_URL (go-redis v9), moto's DynamoDB
// at $TINYSTORE_S3_URL (aws-sdk-go-v2, a chats table per scenario),
// fake-gcs-server at $STORAGE_EMULATOR_HOST (cloud.google.com/go/storage)
// and Azurite at $TINYSTORE_AZURE_CONNECTION_STRING (azblob), an object
// per scenario in their "tinystore", and a net/http server on loopback
// whose handler guards a SQLite file (guard.Handler, guard.Transport). It
// prints one line per cell,
//
//	MATRIX go <backend> <scenario> ok | FAIL <why> | n/a <why>
//
// and exits 1 on any FAIL. `make guard-conformance-go` builds it as
// $(CARGO_TARGET_DIR)/guard-conformance-go; from the repository's root:
//
//	bash tests/guards/with-postgres.sh bash tests/guards/with-s3.sh bash tests/guards/with-redis.sh \
//	  bash tests/guards/with-mariadb.sh bash tests/guards/with-gcs.sh bash tests/guards/with-azurite.sh \
//	  target/guard-conformance-go
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

const language = "go"

// scenario is one of vectors/guards.json's scenarios.
type scenario struct {
	Name     string   `json:"name"`
	Backends []string `json:"backends"`
	Steps    []step   `json:"steps"`
}

// step is one step: its action (the one key besides the expectations),
// the action's arguments, and what is expected.
type step map[string]json.RawMessage

// action is the step's action and its arguments.
func (s step) action() (string, args) {
	for k, v := range s {
		if k != "expect" && k != "expect_between" {
			var a args
			_ = json.Unmarshal(v, &a)
			return k, a
		}
	}
	return "", args{}
}

// args are an action's arguments.
type args struct {
	Fence       string          `json:"fence"`
	Body        *string         `json:"body"`
	FenceHeader *string         `json:"fence_header"`
	Between     json.RawMessage `json:"between"`
}

type vectors struct {
	Scenarios     []scenario                   `json:"scenarios"`
	NotApplicable map[string]map[string]string `json:"not_applicable"`
}

func main() {
	path := flag.String("vectors", "vectors/guards.json", "the scenarios")
	only := flag.String("backends", "sqlite,postgres,mysql,s3,http,redis,dynamodb,gcs,azure", "the backends to run, comma-separated")
	flag.Parse()
	raw, err := os.ReadFile(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "guard-conformance-go:", err)
		os.Exit(2)
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		fmt.Fprintln(os.Stderr, "guard-conformance-go:", *path, err)
		os.Exit(2)
	}
	wanted := map[string]bool{}
	for _, b := range strings.Split(*only, ",") {
		wanted[b] = true
	}
	failed := false
	for _, s := range v.Scenarios {
		for _, b := range s.Backends {
			if !wanted[b] {
				continue
			}
			if why, ok := v.NotApplicable[language][b+"/"+s.Name]; ok {
				fmt.Printf("MATRIX %s %s %s n/a %s\n", language, b, s.Name, why)
				continue
			}
			if err := play(context.Background(), b, s); err != nil {
				failed = true
				fmt.Printf("MATRIX %s %s %s FAIL %s\n", language, b, s.Name, oneLine(err.Error()))
				continue
			}
			fmt.Printf("MATRIX %s %s %s ok\n", language, b, s.Name)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// play runs scenario s on a fresh backend named b.
func play(ctx context.Context, b string, s scenario) (err error) {
	c, err := open(ctx, b, s.Name)
	if err != nil {
		return fmt.Errorf("setting up: %w", err)
	}
	defer c.close()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	for i, st := range s.Steps {
		name, a := st.action()
		if err := c.run(ctx, name, a, st); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, name, err)
		}
	}
	return nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
