package binaries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// The versions built when $KUBEBUILDER_ASSETS is not set. StagingVersion is
// the version of the k8s.io staging modules (k8s.io/api, k8s.io/apiserver,
// ...) released with KubernetesVersion.
const (
	KubernetesVersion = "v1.36.3"
	StagingVersion    = "v0.36.3"
	EtcdVersion       = "v3.6.8"
)

// Environment variables that choose where the binaries come from.
const (
	// EnvAssets names a directory holding etcd and kube-apiserver (the
	// envtest convention). When set, nothing is built.
	EnvAssets = "KUBEBUILDER_ASSETS"
	// EnvBinDir overrides the cache directory the binaries are built into
	// (by default ${XDG_CACHE_HOME:-$HOME/.cache}/informer-go/e2e-bin/<versions>).
	EnvBinDir = "INFORMER_E2E_BIN_DIR"
)

// Paths are the absolute paths of the two executables.
type Paths struct {
	Etcd          string
	KubeAPIServer string
}

// Ensure returns the paths of etcd and kube-apiserver, building them first
// if they are neither in $KUBEBUILDER_ASSETS nor in the cache directory.
// Progress of a build is written to progress (if not nil), one line at a
// time. It blocks
// until both binaries exist or ctx is done, and is safe to call from
// several processes at once: they build once, under a lock file.
func Ensure(ctx context.Context, progress io.Writer) (Paths, error) {
	if progress == nil {
		progress = io.Discard
	}
	if dir := os.Getenv(EnvAssets); dir != "" {
		p := Paths{Etcd: filepath.Join(dir, "etcd"), KubeAPIServer: filepath.Join(dir, "kube-apiserver")}
		for _, f := range []string{p.Etcd, p.KubeAPIServer} {
			if err := checkExecutable(f); err != nil {
				return Paths{}, fmt.Errorf("$%s=%s: %w", EnvAssets, dir, err)
			}
		}
		return p, nil
	}
	dir, err := CacheDir()
	if err != nil {
		return Paths{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Paths{}, fmt.Errorf("create the binary cache: %w", err)
	}
	p := Paths{Etcd: filepath.Join(dir, "etcd"), KubeAPIServer: filepath.Join(dir, "kube-apiserver")}
	if checkExecutable(p.Etcd) == nil && checkExecutable(p.KubeAPIServer) == nil {
		return p, nil
	}

	unlock, err := lock(ctx, filepath.Join(dir, ".lock"), progress)
	if err != nil {
		return Paths{}, err
	}
	defer unlock()
	b := &builder{dir: dir, progress: progress}
	// Another process may have built them while we waited for the lock:
	// build only what is still missing.
	if checkExecutable(p.Etcd) != nil {
		if err := b.buildEtcd(ctx, p.Etcd); err != nil {
			return Paths{}, err
		}
	}
	if checkExecutable(p.KubeAPIServer) != nil {
		if err := b.buildKubeAPIServer(ctx, p.KubeAPIServer); err != nil {
			return Paths{}, err
		}
	}
	return p, nil
}

// CacheDir returns the directory the built binaries live in: $INFORMER_E2E_BIN_DIR,
// or a directory named after the versions under the user cache directory.
func CacheDir() (string, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		return filepath.Abs(dir)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the binary cache (set $%s or $%s): %w", EnvBinDir, EnvAssets, err)
	}
	key := fmt.Sprintf("kubernetes-%s_etcd-%s_%s-%s", KubernetesVersion, EtcdVersion, runtime.GOOS, runtime.GOARCH)
	return filepath.Join(base, "informer-go", "e2e-bin", key), nil
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// lock takes an exclusive lock on path, telling progress if it has to
// wait, and returns the function that releases it.
func lock(ctx context.Context, path string, progress io.Writer) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	fd := int(f.Fd())
	err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(progress, "binaries: waiting for another process building into %s\n", filepath.Dir(path))
		done := make(chan error, 1)
		go func() { done <- syscall.Flock(fd, syscall.LOCK_EX) }() // returns once the lock is ours
		select {
		case err = <-done:
		case <-ctx.Done():
			// Closing the file releases the lock once the goroutine gets it.
			go func() { <-done; f.Close() }()
			return nil, fmt.Errorf("wait for the build lock: %w", ctx.Err())
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		f.Close()
	}, nil
}
