package cache

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// objectTable maps keys to objects, and gives every stored key a small
// integer id that stays the same while the key is stored. It is pure
// bookkeeping, with no locking: [threadSafeMap] serializes access.
//
// It is laid out for memory, because an informer keeps one entry per cached
// object: the entries sit in one slice indexed by id, and the keys are found
// through an open-addressing table of 8-byte slots (linear probing, at most
// 13/16 full) that holds no pointers. A Go map from keys to objects costs
// about 52 bytes per entry at 100k entries; this table about 42, and the ids
// let the indexes hold 4-byte ids instead of 16-byte keys.
type objectTable struct {
	seed maphash.Seed
	// slots is the hash table: 0 for an empty slot, otherwise the low 32
	// bits of the key's hash shifted left by 32, or'ed with id+1. A key's
	// home slot is its hash masked by len(slots)-1; every slot from the
	// home slot to the key's slot is occupied. len(slots) is 0 or a power
	// of two.
	slots []uint64
	// entries holds the entry of each id; a free entry has a nil obj (the
	// store never holds a nil object).
	entries []tableEntry
	// free lists the ids of free entries, reused last freed first.
	free []uint32
	// live counts the stored keys.
	live int
}

// tableEntry is one stored key and its object.
type tableEntry struct {
	key string
	obj any
}

// Load limits of the table's slots: it grows when an insert would fill more
// than maxLoadNum/loadDen of them, and is sized for at most that when built
// for a known count.
const (
	maxLoadNum = 13
	loadDen    = 16
	minSlots   = 8
)

// newObjectTable returns an empty table with room for n keys before it
// grows.
func newObjectTable(n int) *objectTable {
	t := &objectTable{seed: maphash.MakeSeed()}
	if n > 0 {
		t.slots = make([]uint64, slotsFor(n))
		t.entries = make([]tableEntry, 0, n)
	}
	return t
}

// slotsFor returns the number of slots that holds n keys within the load
// limit: a power of two, at least minSlots.
func slotsFor(n int) int {
	need := (n*loadDen + maxLoadNum - 1) / maxLoadNum
	if need <= minSlots {
		return minSlots
	}
	return 1 << bits.Len(uint(need-1))
}

// reserve makes room for n keys in all, so that storing up to that many
// grows nothing.
func (t *objectTable) reserve(n int) {
	if n*loadDen > len(t.slots)*maxLoadNum {
		t.resize(slotsFor(n))
	}
	if more := n - t.live - len(t.free); more > 0 {
		t.entries = slices.Grow(t.entries, more)
	}
}

// len returns the number of stored keys.
func (t *objectTable) len() int { return t.live }

// hash returns the 32 bits of key's hash that the table keeps.
func (t *objectTable) hash(key string) uint32 {
	return uint32(maphash.String(t.seed, key))
}

// find returns the slot position holding key, or -1. h is the key's hash.
func (t *objectTable) find(key string, h uint32) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint32(len(t.slots) - 1)
	tag := uint64(h) << 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == tag && t.entries[uint32(s)-1].key == key {
			return int(i)
		}
	}
}

// lookup returns the id of key.
func (t *objectTable) lookup(key string) (id uint32, ok bool) {
	i := t.find(key, t.hash(key))
	if i < 0 {
		return 0, false
	}
	return uint32(t.slots[i]) - 1, true
}

// lookupBytes is lookup with the key given as bytes; it does not allocate.
func (t *objectTable) lookupBytes(key []byte) (id uint32, ok bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	h := uint32(maphash.Bytes(t.seed, key))
	mask := uint32(len(t.slots) - 1)
	tag := uint64(h) << 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s&^0xffffffff == tag && t.entries[uint32(s)-1].key == string(key) {
			return uint32(s) - 1, true
		}
	}
}

// get returns the object of key.
func (t *objectTable) get(key string) (obj any, ok bool) {
	id, ok := t.lookup(key)
	if !ok {
		return nil, false
	}
	return t.entries[id].obj, true
}

// at returns the entry of id, which must be stored.
func (t *objectTable) at(id uint32) *tableEntry {
	return &t.entries[id]
}

// put stores obj, which must not be nil, under key, and keeps the string key
// from now on. It returns key's id and what key held before.
func (t *objectTable) put(key string, obj any) (id uint32, old any, existed bool) {
	h := t.hash(key)
	if i := t.find(key, h); i >= 0 {
		id = uint32(t.slots[i]) - 1
		e := &t.entries[id]
		// Keep the newer string, as a Go map does: the caller's key may
		// be one it shares (see offerKey), and the older one can go.
		old, e.obj, e.key = e.obj, obj, key
		return id, old, true
	}
	if (t.live+1)*loadDen > len(t.slots)*maxLoadNum {
		t.grow()
	}
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.entries[id] = tableEntry{key: key, obj: obj}
	} else {
		id = uint32(len(t.entries))
		t.entries = append(t.entries, tableEntry{key: key, obj: obj})
	}
	t.insertSlot(uint64(h)<<32 | uint64(id+1))
	t.live++
	return id, nil, false
}

// insertSlot puts s into the first empty slot from its home slot on.
func (t *objectTable) insertSlot(s uint64) {
	mask := uint32(len(t.slots) - 1)
	i := uint32(s>>32) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// grow doubles the slots (or makes the first ones).
func (t *objectTable) grow() {
	t.resize(max(2*len(t.slots), minSlots))
}

// resize moves the keys to size slots, re-placing every key from the hash
// kept in its slot.
func (t *objectTable) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	for _, s := range old {
		if s != 0 {
			t.insertSlot(s)
		}
	}
}

// remove deletes key and frees its id. It returns the id and the object key
// held.
func (t *objectTable) remove(key string) (id uint32, old any, ok bool) {
	i := t.find(key, t.hash(key))
	if i < 0 {
		return 0, nil, false
	}
	id = uint32(t.slots[i]) - 1
	old = t.entries[id].obj
	t.entries[id] = tableEntry{}
	t.free = append(t.free, id)
	t.live--
	t.deleteSlot(uint32(i))
	return id, old, true
}

// deleteSlot empties slot i and moves later slots of the same probe run back
// into the gap, so that no lookup stops early (backward-shift deletion).
func (t *objectTable) deleteSlot(i uint32) {
	mask := uint32(len(t.slots) - 1)
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			break
		}
		// s may move to i only if its home slot is not in (i, j]: it
		// would otherwise be found before the gap.
		home := uint32(s>>32) & mask
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = 0
}

// all calls yield with the id and entry of every stored key, in id order,
// until yield returns false. The table must not change meanwhile.
func (t *objectTable) all(yield func(id uint32, e *tableEntry) bool) {
	for id := range t.entries {
		e := &t.entries[id]
		if e.obj != nil && !yield(uint32(id), e) {
			return
		}
	}
}
