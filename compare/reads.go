package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	informer "github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/internal/benchkit"
)

var readMetrics = []Metric{
	{ID: "get", Label: "Get", Unit: "ns"},
	{ID: "getbykey", Label: "GetByKey", Unit: "ns"},
	{ID: "list", Label: "List", Unit: "ms"},
	{ID: "byindex", Label: "ByIndex (namespace)", Unit: "µs"},
	{ID: "get-allocs", Label: "Get: allocations"},
	{ID: "getbykey-allocs", Label: "GetByKey: allocations"},
	{ID: "list-allocs", Label: "List: allocations"},
	{ID: "byindex-allocs", Label: "ByIndex: allocations"},
	{ID: "get-w", Label: "Get, with a writer", Unit: "ns"},
	{ID: "getbykey-w", Label: "GetByKey, with a writer", Unit: "ns"},
	{ID: "list-w", Label: "List, with a writer", Unit: "ms"},
	{ID: "byindex-w", Label: "ByIndex, with a writer", Unit: "µs"},
}

// readStride walks the objects in an order unrelated to their insertion.
const readStride = 7919

// readsWorkload measures the reads of an informer's store synced with
// cfg.ReadObjects objects of in, alone and while a writer sends
// cfg.WriterRate watch updates per second (cfg.APIWriterRate for an API
// kind, with cfg.APIGetOps calls of Get and GetByKey): time per call of Get,
// GetByKey, List and ByIndex on the namespace index (which returns
// 1/benchkit.Namespaces of the objects), and allocations per call alone.
func readsWorkload(cfg Config, in input) Workload {
	return Workload{
		Name:     fmt.Sprintf("reads/%s/%s", in.kind.Name, sizeName(cfg.ReadObjects)),
		Section:  sectionReads,
		Row:      fmt.Sprintf("%s, %s objects", in.kind.Name, sizeName(cfg.ReadObjects)),
		Metrics:  readMetrics,
		api:      in.wire != nil,
		endRound: in.endRound,
		run: func(lib Library, span func() func()) (sample, error) {
			return runReads(cfg, lib, in, span)
		},
	}
}

// readOp is one kind of read, called ops times per measurement.
type readOp struct {
	id   string
	ops  int
	unit time.Duration
	call func(k int) error
}

func runReads(cfg Config, lib Library, in input, span func() func()) (sample, error) {
	n := cfg.ReadObjects
	getOps, writerRate := cfg.GetOps, cfg.WriterRate
	if in.wire != nil {
		getOps, writerRate = cfg.APIGetOps, cfg.APIWriterRate
	}
	ups, err := in.updates(min(cfg.WatchObjects, n))
	if err != nil {
		return nil, err
	}
	h := benchkit.NewLatencyHandler(nil, 0)
	s, err := startSynced(cfg, lib, in, n, startOptions{handlers: []eventHandler{h}})
	if err != nil {
		return nil, err
	}
	defer s.stop()
	ix := s.indexer
	items, keys, err := byKey(ix.List())
	if err != nil {
		return nil, err
	}
	if len(items) != n {
		return nil, fmt.Errorf("the store holds %d objects, want %d", len(items), n)
	}
	ops := []readOp{
		{id: "get", ops: getOps, unit: time.Nanosecond, call: func(k int) error {
			_, ok, err := ix.Get(items[k*readStride%n])
			return found(ok, err)
		}},
		{id: "getbykey", ops: getOps, unit: time.Nanosecond, call: func(k int) error {
			_, ok, err := ix.GetByKey(keys[k*readStride%n])
			return found(ok, err)
		}},
		{id: "list", ops: cfg.ListOps, unit: time.Millisecond, call: func(int) error {
			if got := len(ix.List()); got != n {
				return fmt.Errorf("list returned %d objects, want %d", got, n)
			}
			return nil
		}},
		{id: "byindex", ops: cfg.ByIndexOps, unit: time.Microsecond, call: func(k int) error {
			objs, err := ix.ByIndex(informer.NamespaceIndex, benchkit.NamespaceOf(k))
			if err == nil && len(objs) == 0 && n >= benchkit.Namespaces {
				err = fmt.Errorf("by-index read of %s found nothing", benchkit.NamespaceOf(k))
			}
			return err
		}},
	}
	out := sample{}
	benchkit.LiveHeap()
	defer span()()
	for _, op := range ops {
		d, spent, err := measureReads(op)
		if err != nil {
			return nil, err
		}
		out[op.id] = float64(d) / float64(op.unit)
		out[op.id+"-allocs"] = float64(spent.Allocs) / float64(op.ops)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var writer sync.WaitGroup
	writer.Go(func() { // exits on ctx.Done(); waited for below
		w := &benchkit.Sender{Events: s.src.Events, Updates: ups, Rate: writerRate}
		w.Send(ctx, int(^uint(0)>>1))
	})
	defer func() {
		cancel()
		writer.Wait()
	}()
	for _, op := range ops {
		d, _, err := measureReads(op)
		if err != nil {
			return nil, err
		}
		out[op.id+"-w"] = float64(d) / float64(op.unit)
	}
	return out, nil
}

// readBatches is the number of batches a read measurement is cut into.
const readBatches = 10

// measureReads calls op.ops reads in readBatches batches and returns the
// shortest time per call of a batch, the one that other processes (which
// take the CPU and evict the store from its caches) disturbed least, and
// what the process spent over all of them. A batch's worth of calls first warms the CPU's caches up, untimed
// and uncounted, so that the first batch does not pay for what the previous
// measurement evicted. Call k reads what the op's k says, the same sequence
// for every library.
func measureReads(op readOp) (time.Duration, benchkit.Spent, error) {
	k := 0
	for range max(op.ops/readBatches, 1) {
		if err := op.call(k); err != nil {
			return 0, benchkit.Spent{}, fmt.Errorf("%s: %w", op.id, err)
		}
		k++
	}
	usage := benchkit.ReadUsage()
	perCall := make([]time.Duration, 0, readBatches)
	for b := range readBatches {
		calls := op.ops*(b+1)/readBatches - op.ops*b/readBatches
		if calls == 0 {
			continue
		}
		began := time.Now()
		for range calls {
			if err := op.call(k); err != nil {
				return 0, benchkit.Spent{}, fmt.Errorf("%s: %w", op.id, err)
			}
			k++
		}
		perCall = append(perCall, time.Since(began)/time.Duration(calls))
	}
	return slices.Min(perCall), usage.Spent(), nil
}

func found(ok bool, err error) error {
	if err == nil && !ok {
		return fmt.Errorf("object not found")
	}
	return err
}

// byKey returns objs sorted by key, and their keys: the order of a list, the
// same for every library.
func byKey(objs []any) ([]any, []string, error) {
	type keyed struct {
		key string
		obj any
	}
	ks := make([]keyed, len(objs))
	for i, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, nil, err
		}
		ks[i] = keyed{key: m.GetNamespace() + "/" + m.GetName(), obj: obj}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	items, keys := make([]any, len(ks)), make([]string, len(ks))
	for i, k := range ks {
		items[i], keys[i] = k.obj, k.key
	}
	return items, keys, nil
}
