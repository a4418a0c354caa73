package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/informer-go/informer/e2e/internal/binaries"
)

// StartTimeout bounds the start of etcd and of kube-apiserver, each: a
// loaded two-core machine can take a minute to bring kube-apiserver up.
const StartTimeout = 3 * time.Minute

// Options configure a [Cluster].
type Options struct {
	// Binaries are the etcd and kube-apiserver executables.
	Binaries binaries.Paths
	// APIServerArgs are appended to the harness's own kube-apiserver
	// flags (a later flag overrides an earlier one).
	APIServerArgs []string
}

// Cluster is a running etcd and kube-apiserver. Its methods are safe for
// concurrent use; RestartAPIServer and StopAPIServer affect every client of
// the cluster, so the tests that call them must not run in parallel with
// others.
type Cluster struct {
	dir  string
	etcd *etcd
	// client is the harness's own clientset (namespaces).
	client kubernetes.Interface

	mu  sync.Mutex
	api *kubeAPIServer // guarded by mu: start, stop and restart
}

// Start starts etcd and kube-apiserver in a new temporary directory and
// returns once kube-apiserver is ready. On error it leaves nothing running
// and returns the directory's path in the error, to read the logs.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "informer-e2e-")
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	c := &Cluster{dir: dir}
	if err := c.start(ctx, opts); err != nil {
		c.Stop(true)
		return nil, fmt.Errorf("start cluster (logs in %s): %w\n%s", dir, err, c.LogTails(30))
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, opts Options) error {
	startCtx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	e, err := startEtcd(startCtx, opts.Binaries.Etcd, c.dir)
	if err != nil {
		return err
	}
	c.etcd = e
	api, err := newKubeAPIServer(opts.Binaries.KubeAPIServer, c.dir, e.clientURL, opts.APIServerArgs)
	if err != nil {
		return err
	}
	c.api = api
	startCtx, cancel = context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	if err := api.start(startCtx); err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return err
	}
	c.client = client
	return nil
}

// Stop stops kube-apiserver, then etcd, and removes the cluster's
// directory unless keep is true. It returns once both processes have
// exited.
func (c *Cluster) Stop(keep bool) {
	c.mu.Lock()
	if c.api != nil {
		c.api.stop()
	}
	c.mu.Unlock()
	if c.etcd != nil {
		c.etcd.proc.stop()
	}
	if !keep {
		_ = os.RemoveAll(c.dir)
	}
}

// Dir is the directory holding the cluster's data, certificates and logs.
func (c *Cluster) Dir() string { return c.dir }

// RESTConfig returns a new client configuration for the cluster: a bearer
// token in group system:masters, the self-signed serving certificate not
// verified, and no client-side rate limit. The caller owns it.
func (c *Cluster) RESTConfig() *rest.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &rest.Config{
		Host:            c.api.url(),
		BearerToken:     c.api.token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1,
		UserAgent:       "informer-go-e2e",
	}
}

// StopAPIServer stops kube-apiserver (etcd keeps running). Clients see
// their connections refused until StartAPIServer.
func (c *Cluster) StopAPIServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.api.stop()
}

// KillAPIServer kills kube-apiserver with SIGKILL (etcd keeps running): its
// connections break without a goodbye, as when the server crashes. Clients
// see their connections refused until StartAPIServer.
func (c *Cluster) KillAPIServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.api.kill()
}

// StartAPIServer starts kube-apiserver again, on the same address with the
// same credentials, and waits until it is ready. It is a no-op if it runs.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.api.proc != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	if err := c.api.start(ctx); err != nil {
		return fmt.Errorf("restart kube-apiserver: %w\n%s", err, c.LogTails(30))
	}
	return nil
}

// RestartAPIServer stops and starts kube-apiserver. Its watch cache starts
// empty and fills from etcd's current state.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	c.StopAPIServer()
	return c.StartAPIServer(ctx)
}

// RestartAPIServerWithArgs stops kube-apiserver and starts it again with
// apiServerArgs in place of the extra flags it ran with (the harness's own
// flags stay), on the same address with the same credentials, say to turn
// a feature gate off and on. Its watch cache starts empty.
func (c *Cluster) RestartAPIServerWithArgs(ctx context.Context, apiServerArgs []string) error {
	c.mu.Lock()
	c.api.stop()
	c.api.setExtraArgs(apiServerArgs)
	c.mu.Unlock()
	return c.StartAPIServer(ctx)
}

// EtcdRevision returns etcd's current revision: the resourceVersion of the
// latest write to the cluster.
func (c *Cluster) EtcdRevision(ctx context.Context) (int64, error) {
	return c.etcd.revision(ctx)
}

// CompactEtcd compacts etcd up to its current revision, which it returns:
// every older revision is gone from etcd. kube-apiserver's watch cache may
// still serve watches from older resourceVersions within its window;
// restart kube-apiserver to empty it.
func (c *Cluster) CompactEtcd(ctx context.Context) (int64, error) {
	rev, err := c.etcd.revision(ctx)
	if err != nil {
		return 0, err
	}
	return rev, c.etcd.compact(ctx, rev)
}

// Client returns a clientset for the cluster, shared by the callers.
func (c *Cluster) Client() kubernetes.Interface { return c.client }

// CreateNamespace creates a namespace named after the test, with a random
// suffix, and returns its name. The namespace is not deleted: without
// kube-controller-manager a deleted namespace stays Terminating, and the
// cluster goes away with the test binary.
func (c *Cluster) CreateNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix(t.Name())}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	created, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return created.Name
}

// namespacePrefix turns a test name into a valid namespace name prefix.
func namespacePrefix(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	// Leave room for the generated suffix within 63 characters.
	s := b.String()
	if len(s) > 50 {
		s = s[:50]
	}
	return strings.TrimRight(s, "-") + "-"
}

// LogTails returns the last n lines of the etcd and kube-apiserver logs.
func (c *Cluster) LogTails(n int) string {
	var b strings.Builder
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		path := filepath.Join(c.dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		fmt.Fprintf(&b, "---- last %d lines of %s\n", n, path)
		if err != nil {
			fmt.Fprintf(&b, "(%v)\n", err)
			continue
		}
		b.Write(tail(data, n))
	}
	return b.String()
}

func tail(data []byte, n int) []byte {
	data = bytes.TrimRight(data, "\n")
	i := len(data)
	for ; n > 0 && i > 0; n-- {
		i = bytes.LastIndexByte(data[:i], '\n')
		if i < 0 {
			i = 0
			break
		}
	}
	out := bytes.TrimLeft(data[i:], "\n")
	return append(out, '\n')
}
