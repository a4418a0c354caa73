package cache

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache/internal/codec"
	"github.com/informer-go/informer/cache/internal/project"
	"github.com/informer-go/informer/cache/internal/share"
)

// DefaultDecodedCacheSize is how many recently read objects an informer in
// the Encode memory mode keeps decoded when [MemoryOptions.DecodedCacheSize]
// is zero.
const DefaultDecodedCacheSize = 1024

// ProjectedAnnotation is the annotation that marks an object projected by
// [MemoryOptions.Keep]. Its value lists the kept paths (beside metadata and
// the paths every projection keeps: apiVersion, kind, and the metadata's
// name, namespace, uid and resourceVersion), sorted and joined by commas.
const ProjectedAnnotation = project.Annotation

// ErrProjected is returned by writers that refuse a projected object (see
// [IsProjected]): sent to the API server with an update, it would clear the
// fields the projection dropped.
var ErrProjected = errors.New("object is projected: it lacks fields the server has, writing it back would clear them")

// IsProjected reports whether obj carries [ProjectedAnnotation]: it was
// projected by [MemoryOptions.Keep] (or is a copy of such an object, since
// the annotation survives DeepCopy and conversion) and lacks fields the API
// server has. Writing it back with an update or a server-side apply would
// clear or disown those fields, so a controller that writes cached objects
// back checks IsProjected first, or uses [CheckWritable]. An object
// without metadata, and nil, are not projected. It is not part of
// client-go's API.
func IsProjected(obj any) bool { return project.IsProjected(obj) }

// CheckWritable returns an error wrapping [ErrProjected] when obj is
// projected ([IsProjected]), nil otherwise. It is not part of client-go's
// API.
func CheckWritable(obj any) error {
	if paths, ok := project.ProjectedPaths(obj); ok {
		return fmt.Errorf("write %T: %w (kept paths: %q)", obj, ErrProjected, paths)
	}
	return nil
}

// MemoryOptions selects how an informer keeps its objects in memory. It is
// not part of client-go's API. Nil options (the default of every informer)
// keep what the ListerWatcher decoded, as client-go does. The modes
// combine; each is applied on the informer's write path, before an object
// is queued, stored or handed to a handler, so every reader (Get, List,
// ByIndex, listers, [AsIndexer], typed informers, handlers, the old object
// of an update included) sees the same object.
//
// # Order on the write path
//
// The informer's own transform ([SharedInformer.SetTransform],
// [InformerOptions.Transform], [InformerFactoryOptions.Transform]) runs
// first, then DropManagedFields, then Keep, then Share. The user's
// transform thus sees the object as the server sent it (it may read fields
// the memory mode drops, or replace the object), and the memory mode
// applies to what is finally cached: a field the transform adds outside
// Keep is dropped, and Share sees the final values, after which nothing
// writes to the object.
//
// # Cached objects are immutable
//
// Every informer's objects are read-only to its callers (client-go's
// contract too). Share makes a violation worse: equal values of different
// objects are then the same memory, so a caller that writes into a cached
// object (a label map, a container list, a byte slice) corrupts other
// cached objects too, not only its own. Change a DeepCopy. The mutation
// detector ([SharedIndexInformerOptions.MutationDetector], or
// KUBE_CACHE_MUTATION_DETECTOR=true) finds such writes.
//
// # Validation
//
// [MemoryOptions.Validate] checks the options against the informer's
// example object. [InformerFactory.InformerFor] returns its error;
// constructors that cannot return an error
// ([NewSharedIndexInformerWithOptions], [NewInformerWithOptions]) report it
// through utilruntime.HandleError, as they report a nil index function, and
// build the informer without memory options (client-go's behaviour): the
// informer works, at full memory cost, and never panics later.
type MemoryOptions struct {
	// DropManagedFields (Trim) deletes every object's
	// metadata.managedFields, about a quarter of a Pod's heap. The object
	// is not marked projected: kube-apiserver keeps the stored
	// managedFields when an update omits them, so it stays safe to write
	// back (a server-side apply needs its own managed fields, which a
	// client computes from its intent, not from a cached object).
	DropManagedFields bool

	// Keep (Trim) is a declarative projection: only these field paths of
	// every object are kept, the rest is zeroed (typed objects) or deleted
	// (unstructured ones). A path is JSON field names joined by dots
	// ("spec.nodeName", "status.phase", "spec.containers.image": lists on
	// the way are crossed). "metadata" is always kept, whole (its
	// managedFields too, unless DropManagedFields), whatever Keep says:
	// the key function, the namespace index and every index on
	// labels, annotations or owner references read it. An indexer that
	// reads a field outside metadata must have it in Keep: on every write
	// of a projected object the informer computes the values of each of
	// its indexes (those present when it starts) before and after the
	// projection, and reports a difference once per index through
	// utilruntime.HandleError, naming the index.
	//
	// A projected object is marked with [ProjectedAnnotation] (see
	// [IsProjected]), so it cannot be mistaken for a full one, also after
	// DeepCopy. For a typed example object, every path is checked against
	// the type at construction: a field that does not exist, or a path
	// that selects inside a map, an interface, a byte slice or a scalar,
	// is an error naming it. Keep needs the example object to be a pointer
	// to a struct with object metadata, or an *unstructured.Unstructured.
	// Empty means no projection.
	Keep []string

	// Share stores once the values that repeat across cached objects:
	// strings (label and annotation keys and values, namespaces, owner
	// references, images, env names...), byte slices (managedFields'
	// raw JSON, Secret data) and whole subtrees deeply equal to one
	// already cached (label maps, owner references, tolerations, env,
	// probes; the maps and lists of unstructured objects too). Readers
	// see ordinary objects at unchanged cost; see "Cached objects are
	// immutable" above for what it asks of callers. One table per
	// informer, whose entries die with the last object using them.
	Share bool

	// Encode keeps each object as serialized bytes (protobuf for the types
	// that implement Marshal and Unmarshal, as the k8s.io/api types do;
	// CBOR for *unstructured.Unstructured) and decodes it on read into a
	// fresh object that the caller owns: Get, GetByKey, List, ByIndex,
	// Index, a resync and the old object of an update each decode what
	// they return (a recently read object is deep-copied instead, see
	// DecodedCacheSize), and writing to it never changes the cache.
	// Handlers get the object the informer was handed (the caller's
	// transform applied), not a decoded copy. Index values are computed
	// at write, from that object. A type with no codec is an error at
	// construction. Share has nothing to share with Encode on.
	Encode bool

	// DecodedCacheSize is how many recently read objects Encode keeps
	// decoded; zero means [DefaultDecodedCacheSize]. It must not be
	// negative, and needs Encode.
	DecodedCacheSize int
}

// Validate checks o against the informer's example object: malformed Keep
// paths, paths the example's type lacks, Keep for an object with no
// metadata or of an unknown shape, Encode for a type with no codec, and a
// bad DecodedCacheSize are errors. Nil options are valid.
func (o *MemoryOptions) Validate(exampleObject runtime.Object) error {
	_, err := newMemoryMode(exampleObject, o, false)
	return err
}

// keptPaths returns the paths a projection of o keeps: Keep and metadata.
func (o *MemoryOptions) keptPaths() []string {
	return append([]string{"metadata"}, o.Keep...)
}

// memoryMode is the write-path part of validated [MemoryOptions]: what
// the informer's transform step does to each object after the user's
// transform. Nil means no memory mode. The store part, Encode, is built by
// newMemoryStore.
type memoryMode struct {
	dropManagedFields bool
	projection        *project.Projection // nil without Keep
	share             bool                // Share is on
	table             *share.Table        // Share's table; nil without Share, or in a mode built only to validate
	encode            *encodeOptions      // nil without Encode
}

// newMemoryMode validates o for objects of example's type and returns its
// mode, with its Share table when withTable is set (a mode that only
// validates needs none); nil options, and options that select nothing,
// return nil.
func newMemoryMode(example runtime.Object, o *MemoryOptions, withTable bool) (*memoryMode, error) {
	if o == nil {
		return nil, nil
	}
	switch {
	case o.DecodedCacheSize < 0:
		return nil, fmt.Errorf("memory options: DecodedCacheSize is %d, must not be negative", o.DecodedCacheSize)
	case o.DecodedCacheSize > 0 && !o.Encode:
		return nil, fmt.Errorf("memory options: DecodedCacheSize is %d but Encode is false", o.DecodedCacheSize)
	}
	m := &memoryMode{dropManagedFields: o.DropManagedFields}
	if len(o.Keep) > 0 {
		if isNilObject(example) {
			return nil, errors.New("memory options: Keep needs an example object, to check the paths against its type")
		}
		p, err := project.New(example, o.keptPaths())
		if err != nil {
			return nil, fmt.Errorf("memory options: Keep: %w", err)
		}
		m.projection = p
	}
	if o.Share {
		m.share = true
		if withTable {
			m.table = share.New(share.Options{Bytes: true, Structures: true})
		}
	}
	if o.Encode {
		if isNilObject(example) {
			return nil, errors.New("memory options: Encode needs an example object, to pick its codec")
		}
		if _, err := codec.New(example, codec.Options{}); err != nil {
			return nil, fmt.Errorf("memory options: Encode: %w", err)
		}
		size := o.DecodedCacheSize
		if size == 0 {
			size = DefaultDecodedCacheSize
		}
		m.encode = &encodeOptions{DecodedCacheSize: size, exampleObject: example}
	}
	if !m.dropManagedFields && m.projection == nil && !m.share && m.encode == nil {
		return nil, nil
	}
	return m, nil
}
