package apiserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// etcd is one single-member etcd on loopback.
type etcd struct {
	proc *process
	// clientURL is where clients (kube-apiserver and CompactEtcd) reach it.
	clientURL string
}

// startEtcd starts etcd with its data in dir/etcd and its log in
// dir/etcd.log, and waits until it reports healthy.
func startEtcd(ctx context.Context, binary, dir string) (*etcd, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	args := []string{
		"--name=e2e",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=e2e=" + peerURL,
		// A test cluster needs no durability, and fsync is slow on a
		// loaded machine.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	proc, err := startProcess("etcd", binary, args, filepath.Join(dir, "etcd.log"))
	if err != nil {
		return nil, err
	}
	e := &etcd{proc: proc, clientURL: clientURL}
	err = waitUntil(ctx, proc, "etcd healthy", func(ctx context.Context) error {
		var health struct{ Health string }
		if err := e.get(ctx, "/health", &health); err != nil {
			return err
		}
		if health.Health != "true" {
			return fmt.Errorf("health %q", health.Health)
		}
		return nil
	})
	if err != nil {
		proc.stop()
		return nil, err
	}
	return e, nil
}

// revision returns the current revision of etcd's key space, which is the
// resourceVersion of the latest write to kube-apiserver.
func (e *etcd) revision(ctx context.Context) (int64, error) {
	// A range over one key that does not exist: only the header matters.
	var resp struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := e.post(ctx, "/v3/kv/range", map[string]any{"key": []byte("informer-e2e/revision-probe")}, &resp); err != nil {
		return 0, fmt.Errorf("read the etcd revision: %w", err)
	}
	rev, err := strconv.ParseInt(resp.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read the etcd revision: %w", err)
	}
	return rev, nil
}

// compact compacts etcd's history up to rev (physically, so that it is
// complete when compact returns): every revision before rev is gone. A
// history already compacted at rev or later is not an error.
func (e *etcd) compact(ctx context.Context, rev int64) error {
	req := map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}
	err := e.post(ctx, "/v3/kv/compaction", req, nil)
	if err != nil && strings.Contains(err.Error(), "required revision has been compacted") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("compact etcd at revision %d: %w", rev, err)
	}
	return nil
}

func (e *etcd) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.clientURL+path, nil)
	if err != nil {
		return err
	}
	return do(req, into)
}

// post calls etcd's JSON gateway.
func (e *etcd) post(ctx context.Context, path string, body, into any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.clientURL+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(req, into)
}

// probeClient makes the harness's own requests (health checks, etcd
// compaction). It keeps no idle connections, so that it leaves no
// goroutines behind.
var probeClient = &http.Client{
	Transport: &http.Transport{
		DisableKeepAlives: true,
		// kube-apiserver serves a self-signed certificate.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback test server
	},
	Timeout: 30 * time.Second,
}

// do sends req and decodes a 200 response's JSON body into into (unless
// nil); any other status is an error carrying the body.
func do(req *http.Request, into any) error {
	resp, err := probeClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(data))
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(data, into)
}
