package binaries

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// progressInterval is how often a running build reports progress.
const progressInterval = 30 * time.Second

// builder builds the binaries from source, each in a throwaway module under
// dir/src, logging every go command to dir/build-<name>.log.
type builder struct {
	dir      string
	progress io.Writer
}

// buildEtcd builds the etcd server (the main package at the root of
// go.etcd.io/etcd/server/v3) into out.
func (b *builder) buildEtcd(ctx context.Context, out string) error {
	const pkg = "go.etcd.io/etcd/server/v3"
	mod := fmt.Sprintf("module informer-e2e/etcd\n\ngo 1.26.0\n\nrequire %s %s\n\ntool %s\n", pkg, EtcdVersion, pkg)
	return b.build(ctx, "etcd", mod, pkg, "", out)
}

// buildKubeAPIServer builds k8s.io/kubernetes/cmd/kube-apiserver into out.
// k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces
// them with directories of its own repository; the throwaway module
// replaces each of them with its released version instead.
func (b *builder) buildKubeAPIServer(ctx context.Context, out string) error {
	const pkg = "k8s.io/kubernetes/cmd/kube-apiserver"
	src := filepath.Join(b.dir, "src", "kube-apiserver")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return fmt.Errorf("build kube-apiserver: %w", err)
	}
	// Start from an empty module: go mod download needs one.
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module informer-e2e/kube-apiserver\n\ngo 1.26.0\n"), 0o644); err != nil {
		return fmt.Errorf("build kube-apiserver: %w", err)
	}
	fmt.Fprintf(b.progress, "binaries: downloading k8s.io/kubernetes@%s\n", KubernetesVersion)
	log, err := b.openLog("kube-apiserver")
	if err != nil {
		return err
	}
	defer log.Close()
	var info struct{ GoMod, Error string }
	dl, err := b.run(ctx, src, log, "go", "mod", "download", "-json", "k8s.io/kubernetes@"+KubernetesVersion)
	if jerr := json.Unmarshal(dl, &info); jerr != nil || info.GoMod == "" {
		return fmt.Errorf("build kube-apiserver: download k8s.io/kubernetes@%s: %v %s (log in %s)", KubernetesVersion, err, info.Error, log.Name())
	}
	upstream, err := os.ReadFile(info.GoMod)
	if err != nil {
		return fmt.Errorf("build kube-apiserver: %w", err)
	}
	staging := stagingModules(string(upstream))
	if len(staging) == 0 {
		return fmt.Errorf("build kube-apiserver: no staging replaces in %s", info.GoMod)
	}
	var mod strings.Builder
	fmt.Fprintf(&mod, "module informer-e2e/kube-apiserver\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\ntool %s\n\nreplace (\n", KubernetesVersion, pkg)
	for _, m := range staging {
		fmt.Fprintf(&mod, "\t%s => %s %s\n", m, m, StagingVersion)
	}
	mod.WriteString(")\n")
	major, minor, _ := strings.Cut(strings.TrimPrefix(KubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	ldflags := fmt.Sprintf("-X k8s.io/component-base/version.gitVersion=%s -X k8s.io/component-base/version.gitMajor=%s -X k8s.io/component-base/version.gitMinor=%s -X k8s.io/component-base/version.gitTreeState=clean",
		KubernetesVersion, major, minor)
	return b.build(ctx, "kube-apiserver", mod.String(), pkg, ldflags, out)
}

var stagingReplace = regexp.MustCompile(`(?m)^\s*(?:replace\s+)?(k8s\.io/[^\s]+)\s+=>\s+\./staging/src/`)

// stagingModules returns the modules a kubernetes go.mod replaces with
// ./staging directories, in the order it lists them.
func stagingModules(gomod string) []string {
	var mods []string
	for _, m := range stagingReplace.FindAllStringSubmatch(gomod, -1) {
		mods = append(mods, m[1])
	}
	return mods
}

// build writes gomod into dir/src/name, resolves its dependencies with go
// mod tidy and builds pkg into out, through a temporary file renamed into
// place once complete.
func (b *builder) build(ctx context.Context, name, gomod, pkg, ldflags, out string) error {
	start := time.Now()
	src := filepath.Join(b.dir, "src", name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(gomod), 0o644); err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	log, err := b.openLog(name)
	if err != nil {
		return err
	}
	defer log.Close()

	fmt.Fprintf(b.progress, "binaries: resolving the dependencies of %s (log in %s)\n", pkg, log.Name())
	if _, err := b.run(ctx, src, log, "go", "mod", "tidy"); err != nil {
		return fmt.Errorf("build %s: go mod tidy: %w (log in %s)", name, err, log.Name())
	}

	tmp, err := os.CreateTemp(b.dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // a no-op once renamed

	fmt.Fprintf(b.progress, "binaries: building %s (first time: minutes; kube-apiserver about 10 on 2 cores)\n", pkg)
	var compiled atomic.Int64
	counter := lineCounter{n: &compiled, w: log}
	stop := b.reportProgress(name, start, &compiled)
	args := []string{"build", "-v", "-trimpath", "-ldflags=-s -w " + ldflags, "-o", tmp.Name(), pkg}
	_, err = b.run(ctx, src, &counter, "go", args...)
	stop()
	if err != nil {
		return fmt.Errorf("build %s: go build: %w (log in %s)", name, err, log.Name())
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	fmt.Fprintf(b.progress, "binaries: built %s in %v\n", out, time.Since(start).Round(time.Second))
	return nil
}

// reportProgress prints a line every progressInterval until the returned
// function is called.
func (b *builder) reportProgress(name string, start time.Time, compiled *atomic.Int64) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() { // exits when stop closes done; stop waits for it
		defer close(exited)
		tick := time.NewTicker(progressInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(b.progress, "binaries: building %s: %d packages compiled, %v elapsed\n",
					name, compiled.Load(), time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-exited }
}

func (b *builder) openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(b.dir, "build-"+name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("build %s: open log: %w", name, err)
	}
	return f, nil
}

// run runs a command in dir with the environment of a reproducible static
// build, its stderr going to log, and returns its stdout.
func (b *builder) run(ctx context.Context, dir string, log io.Writer, name string, args ...string) ([]byte, error) {
	fmt.Fprintf(log, "\n$ cd %s && %s %s\n", dir, name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GO111MODULE=on")
	cmd.Stderr = log
	return cmd.Output()
}

// lineCounter counts the lines written through it: go build -v writes one
// line per package it compiles.
type lineCounter struct {
	n *atomic.Int64
	w io.Writer
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(strings.Count(string(p), "\n")))
	return c.w.Write(p)
}
