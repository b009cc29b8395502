package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"

	"github.com/touchstone-harness/touchstone/internal/certify"
)

func init() {
	commands["verify"] = command{summary: "check a certification bundle (directory or archive): exit 0 valid, 1 tampered or signed by another key", run: runVerify}
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", "BUNDLE [--key PUBLIC_KEY_PEM]", stdout)
	keyPath := fs.String("key", "", "the signer's Ed25519 public key (PEM); without it the key the bundle carries is used, which proves integrity, not who signed")
	bundle, rest := splitPositional(args)
	if code, ok := parseFlags(fs, rest, stderr); !ok {
		return code
	}
	if bundle == "" {
		fmt.Fprintln(stderr, "touchstone verify: name a bundle: touchstone verify OUT/certificate.tar.gz [--key KEY.pem]")
		return exitUsage
	}
	var pin ed25519.PublicKey
	if *keyPath != "" {
		k, err := certify.LoadPublicKey(*keyPath)
		if err != nil {
			fmt.Fprintf(stderr, "touchstone verify: --key: %v\n", oneLine(err))
			return exitUsage
		}
		pin = k
	}
	res, err := certify.Verify(bundle, pin)
	switch {
	case errors.Is(err, certify.ErrInvalid):
		fmt.Fprintf(stdout, "INVALID %s: %v\n", bundle, err)
		return exitFailed
	case err != nil:
		fmt.Fprintf(stderr, "touchstone verify: %v\n", oneLine(err))
		return exitUsage
	}
	how := "the bundle's own key (pass --key to pin the signer)"
	if pin != nil {
		how = "the given key"
	}
	fmt.Fprintf(stdout, "VALID %s: %d files match the manifest signed by key %s, %s\n", bundle, res.Files, res.Fingerprint, how)
	return exitOK
}

// splitPositional takes the first argument that is not a flag (nor a
// flag's value) out of args, so a positional may come before or after the
// flags.
func splitPositional(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1], append(append([]string(nil), args[:i]...), args[i+2:]...)
			}
			return "", args[:i]
		}
		if len(a) > 1 && a[0] == '-' {
			if !containsEq(a) && i+1 < len(args) && !isBoolFlag(a) {
				i++
			}
			continue
		}
		return a, append(append([]string(nil), args[:i]...), args[i+1:]...)
	}
	return "", args
}

func containsEq(s string) bool {
	for _, c := range s {
		if c == '=' {
			return true
		}
	}
	return false
}

// isBoolFlag names the boolean flags of the commands taking positionals.
func isBoolFlag(a string) bool {
	switch a {
	case "-h", "--help", "-help", "--compare", "-compare":
		return true
	}
	return false
}
