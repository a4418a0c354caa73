package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/informer-go/informer/wait"
)

// buildTimeout bounds building one example: with a cold build cache, a
// loaded two-core machine compiles client-go and its dependencies.
const buildTimeout = 10 * time.Minute

// convergeTimeout bounds every wait for a program to act on the cluster:
// generous, for a loaded two-core machine running the race detector.
const convergeTimeout = 3 * time.Minute

// exitTimeout bounds the wait for a program to exit once it should.
const exitTimeout = 2 * time.Minute

// pollInterval is how often the tests check a condition they wait for.
const pollInterval = 50 * time.Millisecond

// examplesDir returns the repository's examples directory, next to the e2e
// module's root.
func examplesDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the e2e module: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("find the e2e module: the tests do not run in a module")
	}
	return filepath.Join(filepath.Dir(gomod), "..", "examples"), nil
}

// buildExample builds the program in examples/name, the root of module
// modulePath, with the go command from that directory, as a user builds
// it, into binDir. It adds -race when the tests run under the race
// detector: a data race in the program then makes it exit with status 66,
// which fails the test. It returns the path of the executable.
func buildExample(name, modulePath string) (string, error) {
	return buildExampleAs(name, modulePath, name, nil)
}

// buildExampleAs builds examples/name as [buildExample] does, into
// binDir/binary, with the import paths of the keys of rewrites replaced by
// their values in every Go file of the program's directory: the files are
// rewritten into a temporary directory and handed to go build -overlay, so
// the example's directory is left as it is. It fails when a key of rewrites
// is imported nowhere.
func buildExampleAs(name, modulePath, binary string, rewrites map[string]string) (string, error) {
	examples, err := examplesDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(examples, name)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()

	// Make sure dir is the example's own module, not a package of another.
	list := exec.CommandContext(ctx, "go", "list", "-m")
	list.Dir = dir
	out, err := list.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build %s: go list -m in %s: %w\n%s", name, dir, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != modulePath {
		return "", fmt.Errorf("build %s: %s is module %q, want %q", name, dir, got, modulePath)
	}

	binary = filepath.Join(binDir, binary)
	args := []string{"build", "-o", binary}
	if raceEnabled() {
		args = append(args, "-race")
	}
	if len(rewrites) > 0 {
		overlay, err := importOverlay(dir, filepath.Join(binDir, filepath.Base(binary)+".overlay"), rewrites)
		if err != nil {
			return "", fmt.Errorf("build %s: %w", name, err)
		}
		args = append(args, "-overlay", overlay)
	}
	build := exec.CommandContext(ctx, "go", append(args, ".")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: go %s in %s: %w\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return binary, nil
}

// importOverlay writes, into the directory work, the Go files of dir with
// the import paths of the keys of rewrites replaced by their values (only
// the import path literals change), and the overlay file of go build that
// substitutes them; it returns the overlay file's path.
func importOverlay(dir, work string, rewrites map[string]string) (string, error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	replace := map[string]string{}
	seen := map[string]bool{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ImportsOnly)
		if err != nil {
			return "", err
		}
		out := slices.Clone(src)
		for _, spec := range slices.Backward(f.Imports) {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return "", err
			}
			to, ok := rewrites[p]
			if !ok {
				continue
			}
			seen[p] = true
			start, end := fset.Position(spec.Path.Pos()).Offset, fset.Position(spec.Path.End()).Offset
			out = slices.Concat(out[:start], []byte(strconv.Quote(to)), out[end:])
		}
		if !bytes.Equal(out, src) {
			rewritten := filepath.Join(work, filepath.Base(file))
			if err := os.WriteFile(rewritten, out, 0o644); err != nil {
				return "", err
			}
			replace[file] = rewritten
		}
	}
	for p := range rewrites {
		if !seen[p] {
			return "", fmt.Errorf("no Go file of %s imports %s", dir, p)
		}
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(work, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// writeKubeconfig writes a kubeconfig file with the server and credentials
// of config into a directory of the test and returns its path.
func writeKubeconfig(t *testing.T, config *rest.Config) string {
	t.Helper()
	const name = "e2e"
	kubeconfig := clientcmdapi.NewConfig()
	kubeconfig.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   config.Host,
		TLSServerName:            config.ServerName,
		InsecureSkipTLSVerify:    config.Insecure,
		CertificateAuthority:     config.CAFile,
		CertificateAuthorityData: config.CAData,
	}
	kubeconfig.AuthInfos[name] = &clientcmdapi.AuthInfo{
		Token:                 config.BearerToken,
		TokenFile:             config.BearerTokenFile,
		ClientCertificate:     config.CertFile,
		ClientCertificateData: config.CertData,
		ClientKey:             config.KeyFile,
		ClientKeyData:         config.KeyData,
	}
	kubeconfig.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kubeconfig.CurrentContext = name
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kubeconfig, path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// program is an example running as a child process of the test, its
// stdout and stderr collected together.
type program struct {
	name   string
	cmd    *exec.Cmd
	output *syncBuffer
	// exited is closed once the process has exited; err is then its exit
	// status.
	exited chan struct{}
	err    error
}

// startProgram starts binary with args. The process receives SIGKILL if
// the test binary dies first, and at the end of the test if it still runs;
// its output is logged then.
func startProgram(t *testing.T, name, binary string, args ...string) *program {
	t.Helper()
	cmd := exec.Command(binary, args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &program{name: name, cmd: cmd, output: out, exited: make(chan struct{})}
	go func() { // exits with the process; the cleanup waits on exited
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if !p.hasExited() {
			_ = cmd.Process.Kill()
			<-p.exited
		}
		t.Logf("%s %s\n---- output:\n%s---- end of output", name, strings.Join(args, " "), out.String())
	})
	return p
}

func (p *program) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// signal sends sig to the process.
func (p *program) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.name, err)
	}
}

// waitForSuccess waits up to timeout for the process to exit, and fails
// the test unless it exited with status 0.
func (p *program) waitForSuccess(t *testing.T, timeout time.Duration) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		t.Fatalf("%s still running after %v", p.name, timeout)
	}
	if p.err != nil {
		t.Fatalf("%s failed: %v", p.name, p.err)
	}
}

// errorLine matches a line of klog's text format with severity error.
var errorLine = regexp.MustCompile(`(?m)^E\d{4} .*$`)

// errorLines returns the error lines the process logged.
func (p *program) errorLines() []string {
	return errorLine.FindAllString(p.output.String(), -1)
}

// logged reports whether the process logged message msg with the
// key/value pairs kv (key, value, key, value...) on one line, as klog's
// text format writes a structured log line: `] "msg" ... key="string"
// key=42`.
func (p *program) logged(msg string, kv ...any) bool {
	want := []string{`] ` + strconv.Quote(msg)}
	for i := 0; i+1 < len(kv); i += 2 {
		v := fmt.Sprint(kv[i+1])
		if s, ok := kv[i+1].(string); ok {
			v = strconv.Quote(s)
		}
		want = append(want, fmt.Sprintf(" %s=%s", kv[i], v))
	}
	for line := range strings.Lines(p.output.String()) {
		if containsAll(line, want) {
			return true
		}
	}
	return false
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// requireLogged fails the test unless the process logged msg with kv.
func (p *program) requireLogged(t *testing.T, msg string, kv ...any) {
	t.Helper()
	if !p.logged(msg, kv...) {
		t.Errorf("%s did not log %q with %v", p.name, msg, kv)
	}
}

// waitForLog waits until the process logged msg with kv, failing the test
// after convergeTimeout or if the process exits first.
func (p *program) waitForLog(t *testing.T, msg string, kv ...any) {
	t.Helper()
	err := p.waitUntil(t.Context(), func(context.Context) bool { return p.logged(msg, kv...) })
	if err != nil {
		t.Fatalf("%s did not log %q with %v: %v", p.name, msg, kv, err)
	}
}

// waitForOutput waits until the process printed line, failing the test
// after convergeTimeout or if the process exits first.
func (p *program) waitForOutput(t *testing.T, line string) {
	t.Helper()
	err := p.waitUntil(t.Context(), func(context.Context) bool {
		for l := range strings.Lines(p.output.String()) {
			if strings.TrimSuffix(l, "\n") == line {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("%s did not print %q: %v", p.name, line, err)
	}
}

// waitForAnnotation waits until the ConfigMap namespace/name has
// annotation key with value want, failing the test after convergeTimeout
// or if the process exits first.
func (p *program) waitForAnnotation(t *testing.T, client kubernetes.Interface, namespace, name, key, want string) {
	t.Helper()
	last := "nothing read"
	err := p.waitUntil(t.Context(), func(ctx context.Context) bool {
		cm, err := client.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error() // the next poll tries again
			return false
		}
		v, ok := cm.Annotations[key]
		last = fmt.Sprintf("annotations %v", cm.Annotations)
		return ok && v == want
	})
	if err != nil {
		t.Fatalf("%s did not set annotation %s=%q on ConfigMap %s/%s: %v; last seen: %s",
			p.name, key, want, namespace, name, err, last)
	}
}

// waitUntil polls cond until it holds and returns nil then. It returns an
// error if the process exits first, or after convergeTimeout.
func (p *program) waitUntil(ctx context.Context, cond func(context.Context) bool) error {
	return wait.PollUntilContextTimeout(ctx, pollInterval, convergeTimeout, true, func(ctx context.Context) (bool, error) {
		if cond(ctx) {
			return true, nil
		}
		if p.hasExited() {
			return false, fmt.Errorf("%s exited: %v", p.name, p.err)
		}
		return false, nil
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
