package cache

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// mutationDetectionEnabled is read once, at process start, from the
// environment variable client-go uses, so that NewCacheMutationDetector, and
// with it the shared informers given no MutationDetector, behave as
// client-go's do: test setups that set the variable keep working after the
// import swap. It is the library's only environment variable; the explicit
// way is [SharedIndexInformerOptions.MutationDetector].
// NewCacheMutationDetectorWithOptions ignores it.
var mutationDetectionEnabled, _ = strconv.ParseBool(os.Getenv("KUBE_CACHE_MUTATION_DETECTOR"))

// MutationDetector watches objects that were put in a cache and reports when
// one of them is modified in place, which is a bug: cached objects are shared
// and must be treated as read-only. It is a debugging aid; its memory use
// grows with the number of objects added.
type MutationDetector interface {
	// AddObject starts watching obj for a while (for the detectors of this
	// package, at least the retention period). It is safe for concurrent
	// use.
	AddObject(obj any)

	// Run checks the watched objects periodically. It blocks until stopCh is
	// closed.
	Run(stopCh <-chan struct{})
}

// NewCacheMutationDetector returns a detector named name that does nothing,
// unless the environment variable KUBE_CACHE_MUTATION_DETECTOR parsed as
// true when the process started: then it returns the detector of
// [NewCacheMutationDetectorWithOptions] with default options, which panics
// on a mutation. The variable is read for compatibility with client-go;
// prefer NewCacheMutationDetectorWithOptions, given to an informer as
// [SharedIndexInformerOptions.MutationDetector], to enable detection
// explicitly.
func NewCacheMutationDetector(name string) MutationDetector {
	if !mutationDetectionEnabled {
		return dummyMutationDetector{}
	}
	klog.Background().Info("Warning: mutation detector is enabled, this will result in memory leakage", "name", name)
	return NewCacheMutationDetectorWithOptions(name, MutationDetectorOptions{})
}

// informerMutationDetector returns the detector of a shared informer of
// objects like exampleObject: the one its options give, else
// NewCacheMutationDetector's (enabled by the environment), and whether it
// detects anything.
func informerMutationDetector(given MutationDetector, exampleObject any) (detector MutationDetector, enabled bool) {
	detector = given
	if detector == nil || isNilObject(detector) {
		detector = NewCacheMutationDetector(fmt.Sprintf("%T", exampleObject))
	}
	_, disabled := detector.(dummyMutationDetector)
	return detector, !disabled
}

// MutationDetectorOptions configures a detector built by
// [NewCacheMutationDetectorWithOptions]. The zero value gives client-go's
// behaviour.
type MutationDetectorOptions struct {
	// Period is the time between two checks. Zero or negative means one
	// second.
	Period time.Duration
	// RetainDuration is how long an object is watched at least: every
	// RetainDuration, the objects added in the previous period are dropped.
	// Zero or negative means two minutes.
	RetainDuration time.Duration
	// OnMutation is called by Run, after logging the mutated objects, with
	// a message naming the cache. Nil means panic with that message, as
	// client-go does: a mutated cache cannot be trusted.
	OnMutation func(message string)
	// Clock is the time source. Nil means the real clock.
	Clock clock.Clock
	// Logger receives a report of each mutated object. The zero value means
	// klog.Background().
	Logger klog.Logger
}

// NewCacheMutationDetectorWithOptions returns an enabled detector named name,
// whatever the environment says. AddObject deep-copies each
// [runtime.Object] it is given (other values, and tombstones, are ignored);
// Run compares every watched object with its copy once per period and
// reports the ones that differ.
func NewCacheMutationDetectorWithOptions(name string, options MutationDetectorOptions) MutationDetector {
	d := &defaultCacheMutationDetector{
		name:           name,
		period:         options.Period,
		retainDuration: options.RetainDuration,
		failureFunc:    options.OnMutation,
		clock:          options.Clock,
		logger:         options.Logger,
	}
	if d.period <= 0 {
		d.period = time.Second
	}
	if d.retainDuration <= 0 {
		d.retainDuration = 2 * time.Minute
	}
	if d.clock == nil {
		d.clock = clock.RealClock{}
	}
	if d.logger.GetSink() == nil {
		d.logger = klog.Background()
	}
	d.logger = klog.LoggerWithValues(klog.LoggerWithName(d.logger, "mutation-detector"), "cache", name)
	return d
}

// dummyMutationDetector is the detector of a process without detection.
type dummyMutationDetector struct{}

// Run returns at once.
func (dummyMutationDetector) Run(stopCh <-chan struct{}) {}

// AddObject does nothing.
func (dummyMutationDetector) AddObject(obj any) {}

// watchedObject is an object put in the cache and the copy made then.
type watchedObject struct {
	cached any
	copied any
}

// defaultCacheMutationDetector keeps the objects added during the current
// retention period and the previous one, each with a deep copy, and compares
// them on every check.
type defaultCacheMutationDetector struct {
	name           string
	period         time.Duration
	retainDuration time.Duration
	failureFunc    func(message string) // nil: panic
	clock          clock.Clock
	logger         klog.Logger

	addedLock sync.Mutex
	added     []watchedObject // guarded by addedLock; added since the last check

	compareLock sync.Mutex
	cached      []watchedObject // guarded by compareLock; this period's objects
	retained    []watchedObject // guarded by compareLock; the previous period's
	lastRotated time.Time       // guarded by compareLock; zero before the first check
}

// AddObject records a deep copy of obj when it is a runtime.Object.
func (d *defaultCacheMutationDetector) AddObject(obj any) {
	if _, ok := obj.(DeletedFinalStateUnknown); ok {
		return
	}
	o, ok := obj.(runtime.Object)
	if !ok || isNilObject(o) {
		return
	}
	copied := o.DeepCopyObject()
	d.addedLock.Lock()
	defer d.addedLock.Unlock()
	d.added = append(d.added, watchedObject{cached: o, copied: copied})
}

// Run checks once per period until stopCh is closed.
func (d *defaultCacheMutationDetector) Run(stopCh <-chan struct{}) {
	for {
		d.CompareObjects()
		t := d.clock.NewTimer(d.period)
		select {
		case <-stopCh:
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// CompareObjects rotates the retention periods when one has passed, then
// compares every watched object with its copy, reports the mutated ones and
// calls the failure function (or panics) if there is any.
func (d *defaultCacheMutationDetector) CompareObjects() {
	d.compareLock.Lock()
	defer d.compareLock.Unlock()

	now := d.clock.Now()
	switch {
	case d.lastRotated.IsZero():
		d.lastRotated = now
	case now.Sub(d.lastRotated) > d.retainDuration:
		d.retained, d.cached = d.cached, nil
		d.lastRotated = now
	}

	d.addedLock.Lock()
	d.cached = append(d.cached, d.added...)
	d.added = nil
	d.addedLock.Unlock()

	altered := false
	for _, objs := range [][]watchedObject{d.cached, d.retained} {
		for i, obj := range objs {
			if reflect.DeepEqual(obj.cached, obj.copied) {
				continue
			}
			altered = true
			d.logger.Error(nil, "Cached object was mutated", "index", i,
				"type", fmt.Sprintf("%T", obj.cached), "now", describe(obj.cached), "whenAdded", describe(obj.copied))
		}
	}
	if !altered {
		return
	}
	msg := fmt.Sprintf("cache %s modified", d.name)
	if d.failureFunc != nil {
		d.failureFunc(msg)
		return
	}
	panic(msg)
}

// describe renders an object for a mutation report: as JSON when it can be,
// as a Go value otherwise.
func describe(obj any) string {
	if b, err := json.Marshal(obj); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%#v", obj)
}
