// Package certify seals a certification bundle and checks one: a manifest
// of the SHA-256 digest of every file, signed with Ed25519.
//
// A bundle is a directory:
//
//	manifest.json    {"algorithm":"ed25519","public_key":"<base64>","files":{"results.json":"<sha256 hex>",...}}
//	manifest.sig     the base64 Ed25519 signature of manifest.json's bytes
//	public-key.pem   the signer's public key (PKIX PEM)
//	...              the files the manifest lists
//
// Seal also writes it as one archive (tar.gz) beside the directory.
package certify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names of the sealing files inside a bundle.
const (
	ManifestFile  = "manifest.json"
	SignatureFile = "manifest.sig"
	PublicKeyFile = "public-key.pem"
)

// maxFile bounds each file read from a bundle or an archive.
const maxFile = 64 << 20

// Manifest lists a bundle's files and their digests.
type Manifest struct {
	Algorithm string            `json:"algorithm"`
	PublicKey string            `json:"public_key"`
	Files     map[string]string `json:"files"`
}

// LoadPrivateKey reads an Ed25519 private key (PKCS#8 PEM).
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("%s: not a PEM file", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not an Ed25519 private key", path, k)
	}
	return priv, nil
}

// LoadPublicKey reads an Ed25519 public key (PKIX PEM).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePublicKey(raw, path)
}

func parsePublicKey(raw []byte, name string) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("%s: not a PEM file", name)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not an Ed25519 public key", name, k)
	}
	return pub, nil
}

// NewKey makes a throwaway signing key.
func NewKey() (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	return priv, err
}

// EncodePrivateKey is the PKCS#8 PEM of a private key.
func EncodePrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// EncodePublicKey is the PKIX PEM of a public key.
func EncodePublicKey(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// Fingerprint is a short name of a public key: the first 16 hex digits of
// its SHA-256.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// Seal signs every file in dir (the bundle's content, already written):
// it writes the public key, the manifest and its signature, then the
// archive archivePath (a tar.gz of dir's files under dir's base name).
func Seal(dir string, priv ed25519.PrivateKey, archivePath string) (*Manifest, error) {
	pub := priv.Public().(ed25519.PublicKey)
	pubPEM, err := EncodePublicKey(pub)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, PublicKeyFile), pubPEM, 0o644); err != nil {
		return nil, err
	}
	files, err := digests(dir)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Algorithm: "ed25519", PublicKey: base64.StdEncoding.EncodeToString(pub), Files: files}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), raw, 0o644); err != nil {
		return nil, err
	}
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, raw))
	if err := os.WriteFile(filepath.Join(dir, SignatureFile), []byte(sig+"\n"), 0o644); err != nil {
		return nil, err
	}
	if archivePath != "" {
		if err := archive(dir, archivePath); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// digests are the SHA-256 of every regular file under dir except the
// manifest and its signature, by slash path.
func digests(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == ManifestFile || rel == SignatureFile {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", rel)
		}
		sum, err := fileDigest(path)
		if err != nil {
			return err
		}
		out[rel] = sum
		return nil
	})
	return out, err
}

func fileDigest(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(fh, maxFile+1))
	if err != nil {
		return "", err
	}
	if n > maxFile {
		return "", fmt.Errorf("%s: larger than %d bytes", path, maxFile)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func archive(dir, path string) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	base := filepath.Base(dir)
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, rel := range names {
		raw, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: base + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(raw)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(raw); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ErrInvalid marks a bundle that does not verify (tampered, or signed by
// another key); other errors are bad input.
var ErrInvalid = errors.New("bundle does not verify")

// Result is what Verify found about a valid bundle.
type Result struct {
	Fingerprint string
	Files       int
}

// Verify checks a bundle: a directory, or an archive Seal wrote. With pin
// set the signature must be by that key; otherwise by the key the bundle
// carries. A tampered file, an unlisted or missing file, a bad signature
// or another signer wraps ErrInvalid.
func Verify(path string, pin ed25519.PublicKey) (*Result, error) {
	files, err := readBundle(path)
	if err != nil {
		return nil, err
	}
	raw, ok := files[ManifestFile]
	if !ok {
		return nil, fmt.Errorf("%s: no %s: not a certification bundle", path, ManifestFile)
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON: %v", ErrInvalid, ManifestFile, err)
	}
	if m.Algorithm != "ed25519" {
		return nil, fmt.Errorf("%w: algorithm %q, want ed25519", ErrInvalid, m.Algorithm)
	}
	carried, err := base64.StdEncoding.DecodeString(m.PublicKey)
	if err != nil || len(carried) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the manifest's public key is not an Ed25519 key", ErrInvalid)
	}
	key := ed25519.PublicKey(carried)
	if pin != nil && !pin.Equal(key) {
		return nil, fmt.Errorf("%w: signed by key %s, not by the given key %s", ErrInvalid, Fingerprint(key), Fingerprint(pin))
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(files[SignatureFile])))
	if err != nil || !ed25519.Verify(key, raw, sig) {
		return nil, fmt.Errorf("%w: the signature of %s does not verify with key %s", ErrInvalid, ManifestFile, Fingerprint(key))
	}
	if pemRaw, ok := files[PublicKeyFile]; ok {
		if pub, err := parsePublicKey(pemRaw, PublicKeyFile); err != nil || !pub.Equal(key) {
			return nil, fmt.Errorf("%w: %s is not the manifest's key", ErrInvalid, PublicKeyFile)
		}
	}
	for name, want := range m.Files {
		content, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("%w: %s is listed but missing", ErrInvalid, name)
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("%w: %s was changed (sha256 %s, signed %s)", ErrInvalid, name, got[:16], shortHex(want))
		}
	}
	for name := range files {
		if _, listed := m.Files[name]; !listed && name != ManifestFile && name != SignatureFile {
			return nil, fmt.Errorf("%w: %s is not in the manifest", ErrInvalid, name)
		}
	}
	return &Result{Fingerprint: Fingerprint(key), Files: len(m.Files)}, nil
}

func shortHex(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

// readBundle loads every file of a bundle directory or archive, by slash
// path relative to the bundle.
func readBundle(path string) (map[string][]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	if fi.IsDir() {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			fh, err := os.Open(p)
			if err != nil {
				return err
			}
			defer fh.Close()
			raw, err := io.ReadAll(io.LimitReader(fh, maxFile+1))
			if err != nil {
				return err
			}
			if len(raw) > maxFile {
				return fmt.Errorf("%s: larger than %d bytes", rel, maxFile)
			}
			out[filepath.ToSlash(rel)] = raw
			return nil
		})
		return out, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: neither a bundle directory nor a tar.gz archive: %v", path, err)
	}
	tr := tar.NewReader(gz)
	total := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(hdr.Name, "/")
		if !ok || rel == "" || strings.Contains(rel, "..") {
			return nil, fmt.Errorf("%w: archive entry %q is outside the bundle", ErrInvalid, hdr.Name)
		}
		raw, err := io.ReadAll(io.LimitReader(tr, maxFile+1))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, hdr.Name, err)
		}
		total += len(raw)
		if len(raw) > maxFile || total > 4*maxFile {
			return nil, fmt.Errorf("%w: archive too large", ErrInvalid)
		}
		out[rel] = raw
	}
	return out, nil
}
