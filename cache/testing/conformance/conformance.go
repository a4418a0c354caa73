package conformance

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// ListerWatcher is the list/watch client of the server under test, with the
// method set of cache.ListerWatcherWithContext.
type ListerWatcher interface {
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// Target is the server under test as one scenario sees it: one resource
// type, one namespace that holds nothing but what the scenario creates, and
// the writes the scenarios need. Scenarios describe objects by their
// metadata only (name, labels, annotations, resourceVersion); a Target maps
// that to its resource type (a ConfigMap, say) and back. Its methods must be
// safe for concurrent use.
type Target interface {
	// Namespace is the namespace the scenario works in.
	Namespace() string

	// ListerWatcher lists and watches the resource in Namespace only. The
	// objects it returns may be of any type with ObjectMeta.
	ListerWatcher() ListerWatcher

	// Create creates an object with obj's name, labels and annotations in
	// Namespace and returns its metadata as stored (with its new
	// resourceVersion). obj.ResourceVersion is empty.
	Create(ctx context.Context, obj *metav1.ObjectMeta) (metav1.Object, error)

	// Update replaces the labels and annotations of the object named
	// obj.Name with obj's and returns its metadata as stored. A non-empty
	// obj.ResourceVersion is a precondition: the server answers 409
	// Conflict if it is not the current one. Update must not change anything
	// else, so that an update changing labels or annotations is a real
	// write.
	Update(ctx context.Context, obj *metav1.ObjectMeta) (metav1.Object, error)

	// Delete deletes the object named name (without finalizers: it is gone
	// at once).
	Delete(ctx context.Context, name string) error
}

// Compacter is an optional capability of a [Target]: after Compact returns,
// every resourceVersion older than the current one is unavailable, both to
// watches (410 through an ERROR event) and to exact lists and continue
// tokens (410). On a real apiserver that takes an etcd compaction and a watch
// cache whose window has moved on; a Target that cannot arrange it does not
// implement Compacter, and the scenarios that need it are skipped.
type Compacter interface {
	Compact(ctx context.Context) error
}

// Scenario is one behaviour every kube-apiserver guarantees.
type Scenario struct {
	// Name is the subtest name, "<area>/<behaviour>".
	Name string
	// Run checks the behaviour against a fresh target. It skips (t.Skip)
	// when the target lacks an optional capability or the server a feature
	// the scenario needs (streaming lists, integer resourceVersions).
	Run func(t *testing.T, target Target)
}

// Scenarios returns the table of scenarios, in a stable order. Callers may
// filter it; [Run] runs all of it.
func Scenarios() []Scenario {
	var all []Scenario
	all = append(all, listScenarios()...)
	all = append(all, watchScenarios()...)
	all = append(all, writeScenarios()...)
	all = append(all, compactionScenarios()...)
	all = append(all, shardScenarios()...)
	return all
}

// Run runs every scenario as a subtest of t, each against a new target from
// newTarget (which may use t.Cleanup to tear it down).
func Run(t *testing.T, newTarget func(t *testing.T) Target) {
	t.Helper()
	RunScenarios(t, Scenarios(), newTarget)
}

// RunScenarios runs the given scenarios as subtests of t, each against a new
// target from newTarget.
func RunScenarios(t *testing.T, scenarios []Scenario, newTarget func(t *testing.T) Target) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			sc.Run(t, newTarget(t))
		})
	}
}
