package apiserver

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// kubeAPIServer is the configuration of the cluster's kube-apiserver, fixed
// at creation so that a restart serves on the same address with the same
// credentials; proc is the running process, if any.
type kubeAPIServer struct {
	binary string
	dir    string
	port   int
	token  string
	// args are the harness's own flags, then the extra ones.
	args      []string
	extraArgs int // how many of args are extra flags
	proc      *process
}

// newKubeAPIServer writes the service account key and the token file into
// dir and picks a free port; it starts nothing.
func newKubeAPIServer(binary, dir, etcdURL string, extraArgs []string) (*kubeAPIServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(dir, "service-account.key")
	if err := writeRSAKey(keyFile); err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	// token,user,uid,"group1,group2"
	if err := os.WriteFile(tokenFile, []byte(token+",e2e-admin,e2e-admin,system:masters\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write the token file: %w", err)
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--secure-port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		// The tests compact etcd themselves (Cluster.CompactEtcd).
		"--etcd-compaction-interval=0",
		// Stop at once on SIGTERM: no delay for load balancers, no
		// graceful wait for requests in flight.
		"--shutdown-delay-duration=0s",
		"--shutdown-send-retry-after=false",
		"--shutdown-watch-termination-grace-period=0s",
		"--v=1",
	}
	args = append(args, extraArgs...)
	return &kubeAPIServer{binary: binary, dir: dir, port: port, token: token, args: args, extraArgs: len(extraArgs)}, nil
}

// setExtraArgs replaces the extra flags of the next start.
func (k *kubeAPIServer) setExtraArgs(extraArgs []string) {
	k.args = append(k.args[:len(k.args)-k.extraArgs:len(k.args)-k.extraArgs], extraArgs...)
	k.extraArgs = len(extraArgs)
}

// start starts kube-apiserver and waits until /readyz answers 200.
func (k *kubeAPIServer) start(ctx context.Context) error {
	proc, err := startProcess("kube-apiserver", k.binary, k.args, filepath.Join(k.dir, "kube-apiserver.log"))
	if err != nil {
		return err
	}
	k.proc = proc
	err = waitUntil(ctx, proc, "kube-apiserver ready", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url()+"/readyz", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+k.token)
		return do(req, nil)
	})
	if err != nil {
		k.stop()
		return err
	}
	return nil
}

// stop stops kube-apiserver if it runs.
func (k *kubeAPIServer) stop() {
	if k.proc != nil {
		k.proc.stop()
		k.proc = nil
	}
}

// kill kills kube-apiserver with SIGKILL if it runs.
func (k *kubeAPIServer) kill() {
	if k.proc != nil {
		k.proc.kill()
		k.proc = nil
	}
}

func (k *kubeAPIServer) url() string {
	return "https://127.0.0.1:" + strconv.Itoa(k.port)
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writeRSAKey writes a new RSA private key to path, PEM-encoded: it both
// signs and verifies service account tokens.
func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate the service account key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write the service account key: %w", err)
	}
	return nil
}
