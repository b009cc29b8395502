package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestStartEmbeddedSandbox(t *testing.T) {
	l, err := Start(context.Background(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Embedded == nil || l.Target == nil || l.Target.Schemas == nil || !l.Target.VirtualClock() {
		t.Fatalf("embedded target not ready: %+v (schemas: %v)", l.Target, l.Target.SchemaError)
	}
	if !l.Target.AllowLive {
		t.Error("the embedded sandbox (loopback, no real system) should not be guarded as live")
	}
}

func TestStartClassifiesErrors(t *testing.T) {
	var ce *ConfigError
	if _, err := Start(context.Background(), Options{Fault: "no-such-fault"}); !errors.As(err, &ce) {
		t.Errorf("unknown fault: %v, want a configuration error", err)
	}
	if _, err := Start(context.Background(), Options{ProfilePath: filepath.Join(t.TempDir(), "none.json")}); !errors.As(err, &ce) {
		t.Errorf("missing profile: %v, want a configuration error", err)
	}
	bad := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(bad, []byte(`{"base_url":"https://127.0.0.1:1","keys":{"tenant":"svc_sandbox_0123456789abcdef.secret12"},"ca_bundle":"/nonexistent.pem"}`), 0o600)
	if _, err := Start(context.Background(), Options{ProfilePath: bad}); !errors.As(err, &ce) {
		t.Errorf("missing ca_bundle: %v, want a configuration error", err)
	}
	down := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(down, []byte(`{"base_url":"http://127.0.0.1:1","keys":{"tenant":"svc_sandbox_0123456789abcdef.secret12"}}`), 0o600)
	var ue *UnreachableError
	if _, err := Start(context.Background(), Options{ProfilePath: down}); !errors.As(err, &ue) {
		t.Errorf("unreachable target: %v, want UnreachableError", err)
	}
}
