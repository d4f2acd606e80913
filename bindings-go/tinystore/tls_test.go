package tinystore_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tinystore.dev/go/tinystore"
)

// TLS through a real server, with certificates made by
// tests/tls/make-certs.sh (openssl): a good handshake, and each refusal
// Unauthorized with its cause: a CA the client does not trust, a wrong host
// name, a plain tcp:// client on the TLS port, an expired certificate, and
// mutual TLS without a client certificate.

// makeCerts makes a small CA with certificates for localhost in a new
// directory.
func makeCerts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script, _ := filepath.Abs("../../tests/tls/make-certs.sh")
	if out, err := exec.Command("sh", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("make-certs.sh: %v\n%s", err, out)
	}
	return dir
}

// serveTLS starts a TLS server with the certificate `name` of certs and
// `extra` arguments; its port.
func serveTLS(t *testing.T, certs, name string, extra ...string) string {
	t.Helper()
	args := append([]string{"--tcp", "127.0.0.1:0",
		"--tls-cert", filepath.Join(certs, name+".pem"), "--tls-key", filepath.Join(certs, name+".key")}, extra...)
	s := serve(t, args...)
	if !strings.HasPrefix(s.tcp, "tls://") {
		t.Fatalf("the server did not say a tls:// address: %q", s.tcp)
	}
	return s.tcp[strings.LastIndex(s.tcp, ":")+1:]
}

// refused checks that connecting to address fails with Unauthorized, its
// message naming `because`.
func refused(t *testing.T, address, because string, opts ...tinystore.ConnectOption) {
	t.Helper()
	store, err := tinystore.Connect(address, opts...)
	if err == nil {
		_ = store.Close()
		t.Fatalf("%s: connected, though it should be refused (%s)", address, because)
	}
	if !errors.Is(err, tinystore.ErrUnauthorized) || !strings.Contains(err.Error(), because) {
		t.Fatalf("%s: want unauthorized naming %q, got %v", address, because, err)
	}
}

func TestTLSServesAGoodHandshakeAndRefusesEachBadOneWithItsCause(t *testing.T) {
	certs, other := makeCerts(t), makeCerts(t)
	token := "go-binding-tls-token-0123456789"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := "?ca=" + filepath.Join(certs, "ca.pem")
	port := serveTLS(t, certs, "server", "--token-file", tokenFile)

	store, err := tinystore.Connect("tls://localhost:"+port+ca, tinystore.Token(token))
	if err != nil {
		t.Fatalf("connect over TLS: %v", err)
	}
	defer store.Close()
	lease, err := store.Locks("tls").Acquire(context.Background(), "k")
	if err != nil {
		t.Fatalf("acquire over TLS: %v", err)
	}
	if lease.Fence.Epoch == 0 {
		t.Errorf("a lease over TLS has no fence: %v", lease.Fence)
	}
	_ = lease.Release(context.Background())

	refused(t, "tls://localhost:"+port+"?ca="+filepath.Join(other, "ca.pem"), "not signed by a trusted CA", tinystore.Token(token))
	refused(t, "tls://127.0.0.1:"+port+ca, "not valid for this host name", tinystore.Token(token))
	refused(t, "tcp://127.0.0.1:"+port, "this port speaks TLS", tinystore.Token(token))

	expired := serveTLS(t, certs, "expired", "--token-file", tokenFile)
	refused(t, "tls://localhost:"+expired+ca, "expired", tinystore.Token(token))

	mutual := serveTLS(t, certs, "server", "--tls-client-ca", filepath.Join(certs, "ca.pem"))
	refused(t, "tls://localhost:"+mutual+ca, "requires a client certificate")
	client := "&cert=" + filepath.Join(certs, "client.pem") + "&key=" + filepath.Join(certs, "client.key")
	certified, err := tinystore.Connect("tls://localhost:" + mutual + ca + client)
	if err != nil {
		t.Fatalf("mutual TLS with a client certificate and no token: %v", err)
	}
	defer certified.Close()
	if _, err := certified.Locks("tls").Acquire(context.Background(), "k"); err != nil {
		t.Fatalf("acquire over mutual TLS: %v", err)
	}
}
