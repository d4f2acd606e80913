package tinystoreotel_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoreotel"
	"tinystore.dev/go/tinystoretest"
)

// traced installs tinystoreotel with the SDK's in-memory exporter and a
// manual metric reader, on a test store made by kit (embedded or served).
type traced struct {
	kit    *tinystoretest.Kit
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func setUp(t *testing.T, served bool) traced {
	spans := tracetest.NewInMemoryExporter()
	reader := sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if err := tinystoreotel.Install(tp, mp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tinystoreotel.Uninstall)
	kit := tinystoretest.New(t)
	if served {
		kit = tinystoretest.Served(t)
	}
	return traced{kit: kit, spans: spans, reader: reader}
}

func both(t *testing.T, run func(t *testing.T, tr traced)) {
	for _, served := range []bool{false, true} {
		name := "embedded"
		if served {
			name = "served"
		}
		t.Run(name, func(t *testing.T) { run(t, setUp(t, served)) })
	}
}

func (tr traced) named(name, key string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range tr.spans.GetSpans() {
		if s.Name == name && (key == "" || attrs(s)["tinystore.key"] == key) {
			out = append(out, s)
		}
	}
	return out
}

func attrs(s tracetest.SpanStub) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

func TestAWaitBehindAHolderAndItsHold(t *testing.T) {
	both(t, func(t *testing.T, tr traced) {
		ctx := context.Background()
		store := tr.kit.Store()
		group := store.Locks("otel")
		first, err := group.Acquire(ctx, "42")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var got *locks.Lease
		var holdErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			holdErr = group.Hold(ctx, "42", func(ctx context.Context, lease *locks.Lease) error {
				got = lease
				return nil
			})
		}()
		for {
			status, err := store.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if status.WaitingTotal > 0 {
				break
			}
		}
		if err := first.Release(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if holdErr != nil {
			t.Fatal(holdErr)
		}
		waits := tr.named("tinystore.wait", "42")
		if len(waits) != 2 {
			t.Fatalf("wait spans: %d", len(waits))
		}
		waited := attrs(waits[1])
		want := map[string]string{
			"tinystore.group": "otel", "tinystore.kind": "lock",
			"tinystore.fence": tinystoreotel.FenceText(got.Fence),
		}
		for k, v := range want {
			if waited[k] != v {
				t.Errorf("%s = %q, want %q", k, waited[k], v)
			}
		}
		if len(waited["tinystore.fence"]) != 40 || waited["tinystore.waited_ms"] == "" {
			t.Errorf("wait span: %v", waited)
		}
		if !first.Fence.Less(got.Fence) {
			t.Errorf("fence %s not above %s", got.Fence, first.Fence)
		}
		holds := tr.named("tinystore.hold", "42")
		if len(holds) != 1 || attrs(holds[0])["tinystore.ended"] != "released" ||
			attrs(holds[0])["tinystore.fence"] != want["tinystore.fence"] || holds[0].Status.Code != codes.Unset {
			t.Errorf("hold spans: %+v", holds)
		}
	})
}

func TestAWaitThatTimesOut(t *testing.T) {
	both(t, func(t *testing.T, tr traced) {
		ctx := context.Background()
		group := tr.kit.Store().Locks("otel")
		first, err := group.Acquire(ctx, "9")
		if err != nil {
			t.Fatal(err)
		}
		defer first.Release(ctx)
		if _, err := group.Acquire(ctx, "9", locks.Wait(0)); !errors.Is(err, locks.ErrTimeout) {
			t.Fatalf("acquire: %v", err)
		}
		waits := tr.named("tinystore.wait", "9")
		failed := waits[len(waits)-1]
		if attrs(failed)["tinystore.error.code"] != "timeout" || failed.Status.Code != codes.Error {
			t.Errorf("wait span: %v %v", attrs(failed), failed.Status)
		}
	})
}

func TestALostLeaseEndsItsHoldSpanLost(t *testing.T) {
	both(t, func(t *testing.T, tr traced) {
		ctx := context.Background()
		err := tr.kit.Store().Locks("otel").Hold(ctx, "7", func(ctx context.Context, lease *locks.Lease) error {
			tr.kit.Expire(lease)
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, locks.ErrLeaseLost) {
			t.Fatalf("hold: %v", err)
		}
		holds := tr.named("tinystore.hold", "7")
		if len(holds) != 1 {
			t.Fatalf("hold spans: %d", len(holds))
		}
		a := attrs(holds[0])
		if a["tinystore.ended"] != "lost" || a["tinystore.error.code"] != "lease_lost" || holds[0].Status.Code != codes.Error {
			t.Errorf("hold span: %v %v", a, holds[0].Status)
		}
	})
}

func refused(t *testing.T, reader *sdkmetric.ManualReader) int64 {
	var data metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &data); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, scope := range data.ScopeMetrics {
		for _, m := range scope.Metrics {
			if m.Name != "tinystore.guard.refused" {
				continue
			}
			if m.Unit != "{write}" {
				t.Errorf("unit %q", m.Unit)
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if want := attribute.NewSet(attribute.String("tinystore.backend", "sqlite")); !p.Attributes.Equals(&want) {
					t.Errorf("attributes %v", p.Attributes)
				}
				total += p.Value
			}
		}
	}
	return total
}

func TestAGuardCheckAcceptedThenRefused(t *testing.T) {
	both(t, func(t *testing.T, tr traced) {
		ctx := context.Background()
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := guard.Ensure(ctx, db, guard.SQLite); err != nil {
			t.Fatal(err)
		}
		group := tr.kit.Store().Locks("otel")
		old, err := group.Acquire(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		old.Release(ctx)
		lease, err := group.Acquire(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release(ctx)
		check := func(under locks.Fenced) error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := guard.Check(ctx, tx, guard.SQLite, "orders/g", under); err != nil {
				return err
			}
			return tx.Commit()
		}
		if err := check(lease); err != nil {
			t.Fatal(err)
		}
		var stale *tinystore.StaleError
		if err := check(old); !errors.As(err, &stale) {
			t.Fatalf("late write: %v", err)
		}
		checks := tr.named("tinystore.guard.check", "")
		if len(checks) != 2 {
			t.Fatalf("check spans: %d", len(checks))
		}
		accepted, refusedSpan := attrs(checks[0]), attrs(checks[1])
		if accepted["tinystore.outcome"] != "accepted" || accepted["tinystore.resource"] != "orders/g" ||
			accepted["tinystore.fence"] != tinystoreotel.FenceText(lease.Fence) || accepted["tinystore.backend"] != "sqlite" {
			t.Errorf("accepted: %v", accepted)
		}
		if refusedSpan["tinystore.outcome"] != "stale" || refusedSpan["tinystore.fence"] != tinystoreotel.FenceText(old.Fence) ||
			refusedSpan["tinystore.largest"] != tinystoreotel.FenceText(lease.Fence) {
			t.Errorf("stale: %v", refusedSpan)
		}
		if n := refused(t, tr.reader); n != 1 {
			t.Errorf("tinystore.guard.refused = %d, want 1", n)
		}
	})
}

// The module tinystore.dev/go brings no OpenTelemetry package: only a
// program that imports this one does.
func TestTheMainModuleNeedsNoOpenTelemetry(t *testing.T) {
	list := exec.Command("go", "list", "-deps", "-test", "./...")
	list.Dir = ".."
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "tinystore.dev/go/locks") {
		t.Fatalf("go list gave no tinystore package:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "go.opentelemetry.io/") {
			t.Errorf("tinystore.dev/go depends on %s", line)
		}
	}
}

// Installed on the global providers while none is set: no span is made,
// so a Hold allocates as it does without tinystoreotel (a span, its
// attributes and the closures would be some 26 allocations more, a fence
// given by pointer 2); once a provider is set, the spans come, and an
// Install after the provider was set makes them too. In a child process
// (this test binary again), whose global providers start unset.
func TestInstalledWithNoProviderMakesNoSpan(t *testing.T) {
	if os.Getenv("TINYSTOREOTEL_CHILD") == "" {
		child := exec.Command(os.Args[0], "-test.run", "^TestInstalledWithNoProviderMakesNoSpan$", "-test.v")
		child.Env = append(os.Environ(), "TINYSTOREOTEL_CHILD=1")
		out, err := child.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	group := store.Locks("otel")
	fn := func(ctx context.Context, lease *locks.Lease) error { return nil }
	hold := func() {
		if err := group.Hold(ctx, "k", fn); err != nil {
			t.Fatal(err)
		}
	}
	tinystoreotel.Uninstall()
	absent := testing.AllocsPerRun(200, hold)
	if err := tinystoreotel.Install(nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tinystoreotel.Uninstall)
	noProvider := testing.AllocsPerRun(200, hold)
	if noProvider > absent+1 {
		t.Errorf("a Hold allocates %.0f times installed with no provider, %.0f without tinystoreotel", noProvider, absent)
	}
	spans := tracetest.NewInMemoryExporter()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)))
	hold()
	if got := len(spans.GetSpans()); got != 2 {
		t.Errorf("spans once a provider is set: %d, want a wait and a hold", got)
	}
	tinystoreotel.Uninstall()
	if err := tinystoreotel.Install(nil, nil); err != nil {
		t.Fatal(err)
	}
	hold()
	if got := len(spans.GetSpans()); got != 4 {
		t.Errorf("spans of an Install after the provider was set: %d, want 2 more", got-2)
	}
}
