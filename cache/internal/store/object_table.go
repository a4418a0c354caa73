package store

import (
	"hash/maphash"
	"slices"
)

// objectTable maps keys to objects, and gives every stored key a small
// integer id that stays the same while the key is stored. It is pure
// bookkeeping, with no locking: [Contents] uses it, its callers serialize
// access.
//
// The objects sit in one slice indexed by id, and the keys are found through
// an open-addressing table (linear probing, at most 13/16 full, sized to
// what it holds rather than to a power of two) whose slots hold the key
// itself next to its hash and id: a lookup reads the slot, then the key's
// bytes and, in parallel with that comparison, the object, with no table
// read waiting for another. Sized for its contents it costs about 54 bytes
// per key (24-byte slots, 24-byte entries); the ids let the indexes hold
// 4-byte ids instead of 16-byte keys.
type objectTable struct {
	seed maphash.Seed
	// slots is the hash table. A key's home slot is its hash scaled to
	// len(slots) (see home); every slot from the home slot to the key's
	// slot, wrapping around, is occupied.
	slots []tableSlot
	// entries holds the entry of each id; a free entry has a nil obj (the
	// store never holds a nil object).
	entries []tableEntry
	// free lists the ids of free entries, reused last freed first.
	free []uint32
	// live counts the stored keys.
	live int
}

// tableSlot is one slot of the hash table.
type tableSlot struct {
	// hashID is 0 for an empty slot, otherwise the low 32 bits of the
	// key's hash shifted left by 32, or'ed with id+1.
	hashID uint64
	// key is the stored key; "" in an empty slot.
	key string
}

// id returns the id of the key in s, which must be occupied.
func (s *tableSlot) id() uint32 { return uint32(s.hashID) - 1 }

// tableEntry is the object stored under an id.
type tableEntry struct {
	obj any
	// slot is the position in slots of the id's key; 0 for a free entry.
	slot uint32
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
func newObjectTable(n int) objectTable {
	t := objectTable{seed: maphash.MakeSeed()}
	if n > 0 {
		t.slots = make([]tableSlot, slotsFor(n))
		t.entries = make([]tableEntry, 0, n)
	}
	return t
}

// slotsFor returns the number of slots that holds n keys within the load
// limit, at least minSlots.
func slotsFor(n int) int {
	return max((n*loadDen+maxLoadNum-1)/maxLoadNum, minSlots)
}

// home returns the home slot of a key whose hash is h: h scaled to the
// number of slots, which spreads hashes as evenly as a mask and needs no
// power of two.
func (t *objectTable) home(h uint32) uint32 {
	return uint32(uint64(h) * uint64(len(t.slots)) >> 32)
}

// next returns the slot after i, wrapping around.
func (t *objectTable) next(i uint32) uint32 {
	if i++; i == uint32(len(t.slots)) {
		return 0
	}
	return i
}

// dist returns how many steps of next lead from slot a to slot b.
func (t *objectTable) dist(a, b uint32) uint32 {
	if b >= a {
		return b - a
	}
	return b + uint32(len(t.slots)) - a
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
	tag := uint64(h) << 32
	for i := t.home(h); ; i = t.next(i) {
		s := &t.slots[i]
		if s.hashID == 0 {
			return -1
		}
		if s.hashID&^0xffffffff == tag && s.key == key {
			return int(i)
		}
	}
}

// getBytes is get with the key given as bytes; it does not allocate.
func (t *objectTable) getBytes(key []byte) (obj any, ok bool) {
	if len(t.slots) == 0 {
		return nil, false
	}
	h := uint32(maphash.Bytes(t.seed, key))
	tag := uint64(h) << 32
	for i := t.home(h); ; i = t.next(i) {
		s := &t.slots[i]
		if s.hashID == 0 {
			return nil, false
		}
		if s.hashID&^0xffffffff == tag && s.key == string(key) {
			return t.entries[s.id()].obj, true
		}
	}
}

// get returns the object of key.
func (t *objectTable) get(key string) (obj any, ok bool) {
	i := t.find(key, t.hash(key))
	if i < 0 {
		return nil, false
	}
	return t.entries[t.slots[i].id()].obj, true
}

// at returns the entry of id, which must be stored.
func (t *objectTable) at(id uint32) *tableEntry {
	return &t.entries[id]
}

// keyAt returns the key of id, which must be stored.
func (t *objectTable) keyAt(id uint32) string {
	return t.slots[t.entries[id].slot].key
}

// put stores obj, which must not be nil, under key, and keeps the string key
// from now on. It returns key's id and what key held before.
func (t *objectTable) put(key string, obj any) (id uint32, old any, existed bool) {
	h := t.hash(key)
	if i := t.find(key, h); i >= 0 {
		s := &t.slots[i]
		id = s.id()
		e := &t.entries[id]
		// Keep the newer string, as a Go map does: the caller's key may
		// be one it shares (see offerKey), and the older one can go.
		old, e.obj, s.key = e.obj, obj, key
		return id, old, true
	}
	if (t.live+1)*loadDen > len(t.slots)*maxLoadNum {
		t.grow()
	}
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.entries[id] = tableEntry{obj: obj}
	} else {
		id = uint32(len(t.entries))
		t.entries = append(t.entries, tableEntry{obj: obj})
	}
	t.insertSlot(tableSlot{hashID: uint64(h)<<32 | uint64(id+1), key: key})
	t.live++
	return id, nil, false
}

// insertSlot puts s into the first empty slot from its home slot on.
func (t *objectTable) insertSlot(s tableSlot) {
	i := t.home(uint32(s.hashID >> 32))
	for t.slots[i].hashID != 0 {
		i = t.next(i)
	}
	t.placeSlot(i, s)
}

// placeSlot stores s at position i and records the position in s's entry.
func (t *objectTable) placeSlot(i uint32, s tableSlot) {
	t.slots[i] = s
	t.entries[s.id()].slot = i
}

// grow makes half as many slots again (or the first ones): the table is
// then about half full.
func (t *objectTable) grow() {
	t.resize(max(len(t.slots)+len(t.slots)/2, minSlots))
}

// resize moves the keys to size slots, re-placing every key from the hash
// kept in its slot.
func (t *objectTable) resize(size int) {
	old := t.slots
	t.slots = make([]tableSlot, size)
	for _, s := range old {
		if s.hashID != 0 {
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
	id = t.slots[i].id()
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
	for j := t.next(i); ; j = t.next(j) {
		s := t.slots[j]
		if s.hashID == 0 {
			break
		}
		// s may move to i only if its home slot is not in (i, j]: it
		// would otherwise be found before the gap.
		if t.dist(t.home(uint32(s.hashID>>32)), j) >= t.dist(i, j) {
			t.placeSlot(i, s)
			i = j
		}
	}
	t.slots[i] = tableSlot{}
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
