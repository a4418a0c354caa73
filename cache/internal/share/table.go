package share

import (
	"hash/maphash"
	"sync"
	"unsafe"
	"weak"
)

// Options configure a [Table].
type Options struct {
	// Bytes makes [Table.Share] canonicalise byte slices too (FieldsV1.Raw,
	// RawExtension.Raw, Secret data...). Objects then share the backing
	// arrays of equal slices, which is safe only because cached objects are
	// never mutated: see the package documentation.
	Bytes bool

	// Structures makes [Table.Share] replace whole values (maps, slices,
	// and structs behind pointers) deeply equal to one already shared by
	// its canonical copy: the label maps, container lists and tolerations
	// that the Pods of one Deployment repeat are then stored once. Like
	// Bytes, it is safe only because cached objects are never mutated.
	Structures bool
}

// Stats are a table's counters.
type Stats struct {
	// Strings, Boxes, Bytes and Structures are the entries of the table's
	// four sets, dead ones not yet swept included.
	Strings, Boxes, Bytes, Structures int
	// Seen is the number of non-empty strings, byte slices and (with
	// Options.Structures) pointers, slices and maps that Share looked at; Replaced, how many of them it replaced with the table's
	// canonical copy; Canonical, how many it found canonical already.
	Seen, Replaced, Canonical uint64
}

// Table holds one canonical copy of each string (and, with [Options.Bytes],
// each byte slice) that repeats across the objects shared through it, and
// forgets a value once no object uses it any more: it refers to its copies
// through weak pointers only. See the package documentation.
//
// A Table is safe for concurrent use; [Table.Share] serialises its callers.
// The zero value is not usable: use [New].
type Table struct {
	bytes      bool
	structures bool
	seed       maphash.Seed

	mu      sync.Mutex
	strs    weakSet    // guarded by mu; hash of a string → its canonical bytes
	boxes   weakSet    // guarded by mu; hash of a string → its canonical box, an any holding it
	byts    weakSet    // guarded by mu; hash of a byte slice → its canonical array
	small   smallCache // guarded by mu; small pointer-free values behind pointers
	structs typedSet   // guarded by mu; hash and type of a pointer's target, a slice's elements or a map → its canonical copy
	seen    []uint32   // guarded by mu; the doorkeeper: hash tags of values seen once, direct-mapped
	// walking is set during a Share; pending holds the hashes of the
	// values it saw for the first time, recorded in seen when it ends.
	// Both guarded by mu.
	walking bool
	pending []uint64
	stats   Stats  // guarded by mu; the entry counts are filled in by Stats
	w       walker // guarded by mu; its scratch values are reused across walks
}

// New returns an empty table.
func New(opts Options) *Table {
	t := &Table{bytes: opts.Bytes, structures: opts.Structures, seed: maphash.MakeSeed(), seen: make([]uint32, minSeen)}
	t.strs.init()
	t.boxes.init()
	t.byts.init()
	t.structs.init()
	t.w.t = t
	return t
}

// Share replaces, in place, the strings of obj (and its byte slices, with
// [Options.Bytes]) by the table's canonical copies of equal values, and
// returns obj. obj is a pointer (to a struct, such as a typed API object or
// an *unstructured.Unstructured) or a map; any other value, and nil, is
// returned untouched.
//
// Share never changes obj's value: every replacement is equal to what it
// replaces, so reflect.DeepEqual holds between obj before and after. It
// follows exported fields, pointers, slices, arrays, maps (keys included)
// and interfaces holding pointers, maps or slices; it leaves alone what it
// cannot safely set (unexported fields other than resource.Quantity's
// cached string, values boxed in interfaces other than strings, channels,
// functions) and stops descending at a depth of maxDepth or after visiting
// maxVisits values, so that cyclic or exponentially shared structures end.
//
// obj must not be read or written by another goroutine during the call,
// and must own what it reaches (a decoded object does; one whose pointer
// or interface fields point into memory shared with other code does not):
// run it on an object fresh from the decoder, before the cache publishes
// it, as client-go runs a TransformFunc.
func (t *Table) Share(obj any) any {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.walking = true
	t.w.root(obj)
	t.walking = false
	t.flushSightings()
	return obj
}

// String returns the table's canonical copy of s, admitting s as the
// canonical copy on the second sighting of its value (see the package
// documentation), or s itself.
func (t *Table) String(s string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.canonString(s); ok {
		return c
	}
	return s
}

// Sweep deletes the entries of values that no object uses any more. The
// table also sweeps by itself, whenever a set's array fills up, so calling
// Sweep is never needed for the table's size to stay bounded; it is there
// for a caller that wants the memory back at once (after a relist, say).
func (t *Table) Sweep() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.strs.sweep()
	t.boxes.sweep()
	t.byts.sweep()
	t.structs.sweep()
	t.resizeSeen()
}

// Stats returns the table's counters.
func (t *Table) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.Strings, s.Boxes, s.Bytes, s.Structures = t.strs.len(), t.boxes.len(), t.byts.len(), t.structs.len()
	return s
}

// canonString returns the canonical copy of s and true, or s and false
// when s is empty, not admitted yet, or collides with another value.
func (t *Table) canonString(s string) (string, bool) {
	if len(s) == 0 {
		return s, false
	}
	t.stats.Seen++
	h := maphash.String(t.seed, s)
	if p, ok := t.strs.get(h, len(s)); ok {
		if p == unsafe.StringData(s) || unsafe.String(p, len(s)) == s {
			return unsafe.String(p, len(s)), true
		}
		return s, false // another live value with this key: leave s alone
	}
	if !t.admit(h) {
		return s, false
	}
	c := cloneString(s)
	t.putString(h, c)
	return c, true
}

// putString records c, a string the table allocated, as the canonical copy
// of the strings hashing to h.
func (t *Table) putString(h uint64, c string) {
	if t.strs.put(h, len(c), weak.Make(unsafe.StringData(c))) {
		t.resizeSeen()
	}
}

// canonBox returns the canonical box of s, an any holding s whose string
// header is shared with every other canonical box of s, and true; or false
// when s has no canonical copy (see canonString).
func (t *Table) canonBox(s string) (any, bool) {
	if len(s) == 0 {
		return nil, false
	}
	h := maphash.String(t.seed, s)
	if p, ok := t.boxes.get(h, len(s)); ok {
		b := (*string)(unsafe.Pointer(p))
		if *b == s {
			t.stats.Seen++
			return boxOf(b), true
		}
		return nil, false
	}
	c, ok := t.canonString(s)
	if !ok {
		return nil, false
	}
	b := new(string)
	*b = c
	t.boxes.put(h, len(c), weak.Make((*byte)(unsafe.Pointer(b))))
	return boxOf(b), true
}

// canonBytes returns the canonical copy of b, its capacity equal to its
// length so that an append copies, and true; or b and false, as
// canonString does.
func (t *Table) canonBytes(b []byte) ([]byte, bool) {
	if len(b) == 0 {
		return b, false // keeps nil and empty apart
	}
	t.stats.Seen++
	h := maphash.Bytes(t.seed, b) ^ bytesDomain
	if p, ok := t.byts.get(h, len(b)); ok {
		if p == unsafe.SliceData(b) || string(unsafe.Slice(p, len(b))) == string(b) {
			return unsafe.Slice(p, len(b)), true
		}
		return b, false
	}
	if !t.admit(h) {
		return b, false
	}
	c := cloneBytes(b)
	t.byts.put(h, len(c), weak.Make(unsafe.SliceData(c)))
	return c, true
}

// bytesDomain keeps the doorkeeper's tags of byte slices apart from those
// of the equal strings.
const bytesDomain = 0x9e3779b97f4a7c15

// Sizes of the doorkeeper, in slots.
const (
	minSeen = 1 << 12
	maxSeen = 1 << 20
)

// admit reports whether the value hashing to h was seen before (its tag is
// in the doorkeeper), and records it otherwise. A value seen once is not
// admitted, so that a value unique to one object (a name, a uid, an IP)
// costs no entry; a false positive only admits a value early. The
// doorkeeper is 4-way set associative, first in first out within a set,
// so a sighting is remembered until four later ones fall into its set.
//
// During a Share, first sightings are recorded when the walk ends
// (flushSightings), so that a value one object holds twice (a Pod's IP in
// status.podIP and status.podIPs, its token volume's name in every volume
// mount) is not admitted by that object alone: its entry would cost more
// than the copy it saves.
func (t *Table) admit(h uint64) bool {
	set := (*[4]uint32)(t.seen[h&uint64(len(t.seen)-1)&^3:])
	tag := uint32(h>>32) | 1 // never 0, the empty slot
	for i, s := range set {
		if s == tag {
			copy(set[i:], set[i+1:])
			set[3] = 0
			return true
		}
	}
	if t.walking {
		t.pending = append(t.pending, h)
		return false
	}
	set[0], set[1], set[2], set[3] = tag, set[0], set[1], set[2]
	return false
}

// flushSightings records the first sightings of the walk that ends, once
// each.
func (t *Table) flushSightings() {
	for _, h := range t.pending {
		set := (*[4]uint32)(t.seen[h&uint64(len(t.seen)-1)&^3:])
		tag := uint32(h>>32) | 1
		if set[0] != tag && set[1] != tag && set[2] != tag && set[3] != tag {
			set[0], set[1], set[2], set[3] = tag, set[0], set[1], set[2]
		}
	}
	t.pending = t.pending[:0]
}

// resizeSeen sizes the doorkeeper to four slots per canonical string, within
// [minSeen, maxSeen], so that a value's first sighting is remembered for
// longer in a table that holds more values. Resizing forgets the sightings.
func (t *Table) resizeSeen() {
	n := minSeen
	for n < 4*t.strs.len() && n < maxSeen {
		n *= 2
	}
	if n != len(t.seen) {
		t.seen = make([]uint32, n)
	}
}

// minAlloc is the smallest allocation of a canonical copy: the allocator
// batches pointer-free objects smaller than 16 bytes into shared slots,
// and a weak pointer into such a slot stays valid while any object of the
// slot lives, so a padded copy is what lets the table forget it on time.
const minAlloc = 16

func cloneString(s string) string {
	b := make([]byte, max(len(s), minAlloc))
	copy(b, s)
	return unsafe.String(&b[0], len(s))
}

func cloneBytes(s []byte) []byte {
	b := make([]byte, max(len(s), minAlloc))
	copy(b, s)
	return b[:len(s):len(s)]
}

// minSlots is the smallest size of a set's slot array.
const minSlots = 1024

// weakSet maps values, by their hash and length, to weak pointers to their
// canonical copies: an open-addressing table with linear probing from the
// upper half of the hash (a seeded hash already). Entries are never
// deleted one by one: a dead entry stays in its slot until its key is
// stored again, or until the array fills to three quarters, when sweep
// moves the live entries to a new array of twice their number (at least
// minSlots). So the set holds at most about twice the entries alive at its
// last sweep, each insert costs O(1) amortised, and the array shrinks once
// most values died.
type weakSet struct {
	slots []slot
	used  int // slots with an entry, dead ones included
}

// slot is one entry: a weak pointer to the first byte of a canonical copy
// (a string's or byte slice's bytes, or a box), under its key: the upper
// 32 bits of the value's hash and its length. Key 0 marks an empty slot;
// a value is never empty. Two values of one length whose hashes share
// their upper half and their probe sequence share a key: the newcomer is
// left unshared.
type slot struct {
	key uint64
	p   weak.Pointer[byte]
}

func keyOf(h uint64, n int) uint64 { return h&^(1<<32-1) | uint64(uint32(n)) }

func (s *weakSet) init() { s.slots = make([]slot, minSlots) }

// len returns the number of entries, dead ones not yet swept included.
func (s *weakSet) len() int { return s.used }

// find returns the slot of key, or the empty slot where it would go.
func (s *weakSet) find(key uint64) *slot {
	mask := uint64(len(s.slots) - 1)
	for i := key >> 32 & mask; ; i = (i + 1) & mask {
		if sl := &s.slots[i]; sl.key == key || sl.key == 0 {
			return sl
		}
	}
}

// get returns the canonical copy of the value of hash h and length n, if
// it has a live one.
func (s *weakSet) get(h uint64, n int) (*byte, bool) {
	sl := s.find(keyOf(h, n))
	if sl.key == 0 {
		return nil, false
	}
	p := sl.p.Value()
	return p, p != nil
}

// put stores p, the canonical copy of the value of hash h and length n,
// replacing a dead entry, and reports whether it swept first.
func (s *weakSet) put(h uint64, n int, p weak.Pointer[byte]) bool {
	swept := false
	if 4*(s.used+1) > 3*len(s.slots) {
		s.sweep()
		swept = true
	}
	key := keyOf(h, n)
	sl := s.find(key)
	if sl.key == 0 {
		s.used++
	}
	*sl = slot{key: key, p: p}
	return swept
}

// sweep moves the live entries to a new array of twice their number.
func (s *weakSet) sweep() {
	old := s.slots
	s.slots, s.used = make([]slot, slotsFor(old, (*slot).live, 2)), 0
	for i := range old {
		if old[i].live() {
			*s.find(old[i].key) = old[i]
			s.used++
		}
	}
}

func (sl *slot) live() bool { return sl.key != 0 && sl.p.Value() != nil }

// slotsFor returns the size of the array that replaces old in a sweep:
// factor times its live slots, a power of two, at least minSlots.
func slotsFor[S any](old []S, live func(*S) bool, factor int) int {
	n := 0
	for i := range old {
		if live(&old[i]) {
			n++
		}
	}
	size := minSlots
	for size < factor*n {
		size *= 2
	}
	return size
}

// eface is the layout of an any: its dynamic type and its data word.
type eface struct {
	typ, data unsafe.Pointer
}

// stringType is the type word of an any holding a string.
var stringType = func() unsafe.Pointer {
	var v any = ""
	return (*eface)(unsafe.Pointer(&v)).typ
}()

// boxOf returns an any holding the string b points to, with b as its data
// word, so that every such any shares the box b.
func boxOf(b *string) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = stringType, unsafe.Pointer(b)
	return v
}

// dataOf returns the data word of v.
func dataOf(v *any) unsafe.Pointer { return (*eface)(unsafe.Pointer(v)).data }
