// Package testcert writes a fresh self-signed certificate for localhost
// (and 127.0.0.1, ::1) for tests that run real TLS servers.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cert is a certificate written to files, the pool that trusts it, and
// the key pair a server in the same process serves it with.
type Cert struct {
	CertFile, KeyFile string
	Pool              *x509.CertPool
	Cert              *x509.Certificate
	KeyPair           tls.Certificate
}

// Write writes an ECDSA P-256 certificate for localhost, valid for 10 days
// (under the 14 browsers accept through serverCertificateHashes), into a
// temporary directory of t.
func Write(t testing.TB) Cert {
	t.Helper()
	c, err := WriteDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// WriteDir is Write into dir (cert.pem, key.pem), for the load tools'
// lab origins.
func WriteDir(dir string) (Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Cert{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return Cert{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Cert{}, err
	}
	c := Cert{CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem"), Pool: x509.NewCertPool()}
	if err := os.WriteFile(c.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return Cert{}, err
	}
	if err := os.WriteFile(c.KeyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return Cert{}, err
	}
	if c.Cert, err = x509.ParseCertificate(der); err != nil {
		return Cert{}, err
	}
	c.Pool.AddCert(c.Cert)
	c.KeyPair = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c.Cert}
	return c, nil
}
