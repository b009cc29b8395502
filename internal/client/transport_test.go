package client

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTransportVerifiesTLSAndAcceptsCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()

	plain, err := Transport("", 5*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{BaseURL: srv.URL, HTTP: plain}
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/"}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("self-signed server accepted without a CA bundle: %v", err)
	}

	bundle := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(bundle, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	withCA, err := Transport(bundle, 5*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.HTTP = withCA
	if r, err := c.Do(context.Background(), Request{Method: "GET", Path: "/"}); err != nil || r.Status != 204 {
		t.Fatalf("with the CA bundle: %v", err)
	}
	if _, err := Transport(filepath.Join(t.TempDir(), "none.pem"), time.Second, 0); err == nil {
		t.Error("a missing CA bundle was accepted")
	}
}

func TestCurlUsesKeyPlaceholderAndQuotes(t *testing.T) {
	ex := &Exchange{KeyName: "tenant", Request: RequestRecord{Method: "POST", URL: "http://h/x", Header: http.Header{
		"X-Api-Key": {"svc_sandbox_0123456789abcdef.secretpart"}, "Idempotency-Key": {"k'1"}}, Body: []byte(`{"a":"it's"}`)}}
	curl := ex.Curl()
	if strings.Contains(curl, "secretpart") || !strings.Contains(curl, `"X-Api-Key: ${TOUCHSTONE_KEY_TENANT}"`) {
		t.Errorf("curl line: %s", curl)
	}
	if !strings.Contains(curl, `'Idempotency-Key: k'\''1'`) {
		t.Errorf("single quote not escaped: %s", curl)
	}
	if tr := ex.Transcript(); strings.Contains(tr, "secretpart") || !strings.Contains(tr, "svc_sandbox_0123456789abcdef.***") {
		t.Errorf("transcript: %s", tr)
	}
}
