package store

import (
	"errors"
	"fmt"
	"hash/maphash"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache/internal/codec"
)

// Encoded is an object kept as its serialized bytes: what [Contents] holds
// for a store of the Encode memory mode, in place of the object. Build one
// with [Encoding.Encode]; its bytes never change after that.
//
// While it is being written it also carries the object it encodes (its
// source), so that the index functions ([Encoding.IndexFunc]) and the
// resource version of the write are computed from that object instead of
// by decoding; the writer drops the source ([Encoded.DropSource]) once the
// write is applied or refused, and from then on only the bytes are held.
type Encoded struct {
	data []byte
	// source is the object data encodes while it is being written; nil
	// after DropSource.
	source atomic.Pointer[encodedSource]
}

// encodedSource is the object an [Encoded] is being written from.
type encodedSource struct{ obj runtime.Object }

// Len returns the number of encoded bytes.
func (x *Encoded) Len() int { return len(x.data) }

// DropSource forgets the object x was encoded from: call it once the write
// of x is applied or refused. Index functions called later (by an
// AddIndexes) decode x instead.
func (x *Encoded) DropSource() { x.source.Store(nil) }

// EncodedFromBytes returns an Encoded holding data, which it keeps: bytes
// that an [Encoding] of the same type wrote (say, read back from a
// snapshot). Whether they decode is only known when they are read.
func EncodedFromBytes(data []byte) *Encoded {
	return &Encoded{data: data}
}

// Bytes returns the encoded bytes, which the caller must not modify.
func (x *Encoded) Bytes() []byte { return x.data }

// GetObjectMeta returns the metadata of the object x is being written
// from, so that a store records the resource version of the write as it
// would for the object itself (k8s.io/apimachinery/pkg/api/meta.Accessor
// accepts an Encoded through this method); nil once the source is dropped
// or when the object has no metadata.
func (x *Encoded) GetObjectMeta() metav1.Object {
	s := x.source.Load()
	if s == nil {
		return nil
	}
	m, err := meta.Accessor(s.obj)
	if err != nil {
		return nil
	}
	return m
}

// ErrNotObject is wrapped by the error of [Encoding.Encode] for a value
// that is not a runtime.Object, which no codec encodes.
var ErrNotObject = errors.New("not a runtime.Object")

// EncodingOptions tune [NewEncoding].
type EncodingOptions struct {
	// Codec chooses the formats (see [codec.Options]).
	Codec codec.Options
	// Recent is the number of recently read objects kept decoded, rounded
	// up to a power of two: 0 means [DefaultRecent], a negative number
	// none.
	Recent int
}

// DefaultRecent is the number of recently read objects an [Encoding] keeps
// decoded when [EncodingOptions.Recent] is 0: about 4.5 MB of realistic Pods
// without their managedFields (17.6 KB each, decoded).
const DefaultRecent = 256

// Encoding turns the objects of one store into [Encoded] values and back.
// The codec is chosen from the type of an example given to [NewEncoding],
// or, without one, from the first object encoded: every object of the store
// must then be of that type. It is safe for concurrent use and holds no
// lock: the codec is set once, and the recently read objects kept decoded
// sit in slots replaced atomically (see recentSet).
type Encoding struct {
	opts  codec.Options
	codec atomic.Pointer[codec.Codec]
	// recent is nil when no object is kept decoded.
	recent *recentSet
	// indexed is the last object decoded for index functions, so that
	// the functions of several indexes added at once decode each stored
	// object once.
	indexed atomic.Pointer[recentEntry]
}

// NewEncoding returns an encoding for the objects of one store. When
// example is not nil, the codec is chosen now and a type with none is an
// error wrapping [codec.ErrNoCodec]; otherwise it is chosen by the first
// call of Encode.
func NewEncoding(example runtime.Object, opts EncodingOptions) (*Encoding, error) {
	e := &Encoding{opts: opts.Codec}
	if example != nil {
		c, err := codec.New(example, opts.Codec)
		if err != nil {
			return nil, err
		}
		e.codec.Store(c)
	}
	n := opts.Recent
	if n == 0 {
		n = DefaultRecent
	}
	if n > 0 {
		e.recent = newRecentSet(n)
	}
	return e, nil
}

// codecFor returns the codec, choosing it from obj's type if none is yet.
func (e *Encoding) codecFor(obj runtime.Object) (*codec.Codec, error) {
	if c := e.codec.Load(); c != nil {
		return c, nil
	}
	c, err := codec.New(obj, e.opts)
	if err != nil {
		return nil, err
	}
	if !e.codec.CompareAndSwap(nil, c) {
		c = e.codec.Load() // another writer chose first, with its object's type
	}
	return c, nil
}

// Encode returns obj serialized, with obj as its source until
// [Encoded.DropSource]. It does not modify or retain obj beyond that, and
// fails, never panics, when obj is not a runtime.Object, is of another type
// than the store's objects, or its type has no codec.
func (e *Encoding) Encode(obj any) (*Encoded, error) {
	o, ok := obj.(runtime.Object)
	if !ok || o == nil {
		return nil, fmt.Errorf("encode %T: %w", obj, ErrNotObject)
	}
	c, err := e.codecFor(o)
	if err != nil {
		return nil, err
	}
	data, err := c.Encode(o)
	if err != nil {
		return nil, err
	}
	x := &Encoded{data: data}
	x.source.Store(&encodedSource{obj: o})
	return x, nil
}

// ForgetIndexed drops the object decoded last for index functions: call it
// when the index functions are done with the stored objects (AddIndexes).
func (e *Encoding) ForgetIndexed() { e.indexed.Store(nil) }

// Decode returns a fresh object that x encodes, which the caller owns: a
// deep copy of the decoded object kept for x when there is one, otherwise
// a new decode. It fails with an error wrapping [codec.ErrMalformed] when
// the bytes do not decode.
func (e *Encoding) Decode(x *Encoded) (runtime.Object, error) {
	if obj := e.recent.copyOf(x); obj != nil {
		return obj, nil
	}
	return e.decode(x)
}

// DecodeRecent is Decode that also keeps the decoded object, or rather a
// copy of it no caller sees, among the recently read ones, so that reading
// x again costs a deep copy instead of a decode. Reads of one object (Get)
// use it; reads of many (List, ByIndex) use Decode, so that they do not
// flush the recent objects.
func (e *Encoding) DecodeRecent(x *Encoded) (runtime.Object, error) {
	if obj := e.recent.copyOf(x); obj != nil {
		return obj, nil
	}
	obj, err := e.decode(x)
	if err != nil {
		return nil, err
	}
	if slot := e.recent.admit(x); slot != nil {
		if kept := obj.DeepCopyObject(); kept != nil {
			slot.Store(&recentEntry{x: x, obj: kept})
		}
	}
	return obj, nil
}

// decode decodes x's bytes.
func (e *Encoding) decode(x *Encoded) (runtime.Object, error) {
	c := e.codec.Load()
	if c == nil { // no Encoded exists before the codec does
		return nil, fmt.Errorf("%w: no codec chosen yet", codec.ErrMalformed)
	}
	return c.Decode(x.data)
}

// sourceOf returns the object x is written from, or, once it is dropped, a
// decode of x, shared by the index functions called with x in a row.
func (e *Encoding) sourceOf(x *Encoded) (runtime.Object, error) {
	if s := x.source.Load(); s != nil {
		return s.obj, nil
	}
	if last := e.indexed.Load(); last != nil && last.x == x {
		return last.obj, nil
	}
	obj, err := e.decode(x)
	if err != nil {
		return nil, err
	}
	e.indexed.Store(&recentEntry{x: x, obj: obj})
	return obj, nil
}

// IndexFunc returns fn for a store whose objects are [Encoded]: given an
// Encoded, it calls fn with the object being written or, once that is
// dropped, with a decode; given any other object (a query's), it calls fn
// with it. Indexed values are thus computed from the object a write
// stores, never by decoding, except for indexes added after the object.
func (e *Encoding) IndexFunc(fn IndexFunc) IndexFunc {
	return func(obj any) ([]string, error) {
		x, ok := obj.(*Encoded)
		if !ok {
			return fn(obj)
		}
		src, err := e.sourceOf(x)
		if err != nil {
			return nil, err
		}
		return fn(src)
	}
}

// recentSet keeps up to a fixed number of decoded objects, each with the
// [Encoded] it decodes, in pairs of slots chosen by the Encoded's address
// (two-way set associative). An entry is only ever a private copy:
// readers get deep copies of it. Entries are immutable and replaced whole,
// atomically, so readers and writers need no lock. Holding the Encoded
// keeps its address from being reused, so an entry cannot answer for
// another Encoded; and a key written again gets a new Encoded, so an entry
// never answers with an old version.
//
// An entry read since it was kept gets a second chance: a new object takes
// a slot of its pair whose entry was not read since it was kept; when both
// were, it is not kept, and both entries are marked unread instead. A burst
// of one-off reads therefore does not flush the objects read over and over.
type recentSet struct {
	seed maphash.Seed
	// mask selects a pair: its low bit is clear.
	mask  uint64
	slots []atomic.Pointer[recentEntry]
}

// recentEntry is one kept object.
type recentEntry struct {
	x   *Encoded
	obj runtime.Object // decoded from x, never handed out
	// read is set when the entry was copied out since it was kept.
	read atomic.Bool
}

// newRecentSet returns a set of n slots, rounded up to an even power of
// two.
func newRecentSet(n int) *recentSet {
	size := 2
	for size < n {
		size <<= 1
	}
	return &recentSet{seed: maphash.MakeSeed(), mask: uint64(size-1) &^ 1, slots: make([]atomic.Pointer[recentEntry], size)}
}

// pair returns the two slots that may keep x.
func (r *recentSet) pair(x *Encoded) []atomic.Pointer[recentEntry] {
	i := maphash.Comparable(r.seed, x) & r.mask
	return r.slots[i : i+2 : i+2]
}

// copyOf returns a deep copy of the object kept for x; nil when there is
// none (or r is nil).
func (r *recentSet) copyOf(x *Encoded) runtime.Object {
	if r == nil {
		return nil
	}
	pair := r.pair(x)
	for i := range pair {
		if e := pair[i].Load(); e != nil && e.x == x {
			if !e.read.Load() {
				e.read.Store(true)
			}
			return e.obj.DeepCopyObject()
		}
	}
	return nil
}

// admit returns the slot that is to keep x: an empty one of its pair, or
// one whose entry was not read since it was kept. When both entries were
// read it returns nil and marks them unread, for the next object offered.
func (r *recentSet) admit(x *Encoded) *atomic.Pointer[recentEntry] {
	if r == nil {
		return nil
	}
	pair := r.pair(x)
	var unread *atomic.Pointer[recentEntry]
	for i := range pair {
		e := pair[i].Load()
		if e == nil {
			return &pair[i]
		}
		if unread == nil && !e.read.Load() {
			unread = &pair[i]
		}
	}
	if unread == nil {
		for i := range pair {
			pair[i].Load().read.Store(false)
		}
	}
	return unread
}
