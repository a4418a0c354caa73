package store

import "math/bits"

// idSet is a set of [objectTable] ids, the keys indexed under one value of
// an index. Up to smallIDSet ids it is a plain list; above, an
// open-addressing hash table of 4-byte slots (linear probing, at most 3/4
// full). Either way it holds no pointers, and costs 4 to 11 bytes per id
// where a set of keys costs 30 to 60. The zero value is an empty set.
type idSet struct {
	// slots holds id+1 per member: the first n slots in a list, or, in a
	// table (len(slots) > smallIDSet, a power of two), anywhere, with 0
	// for an empty slot. A member's home slot is idHome(id); every slot
	// from its home to its slot is occupied.
	slots []uint32
	n     int
}

// smallIDSet is the largest set kept as a list.
const smallIDSet = 8

// idSlotsFor returns the table size for n ids: a power of two at most 3/4
// full.
func idSlotsFor(n int) int {
	return 1 << bits.Len(uint((n*4+2)/3-1))
}

// len returns the number of ids.
func (s *idSet) len() int { return s.n }

func (s *idSet) hashed() bool { return len(s.slots) > smallIDSet }

// idHome returns the home slot of id in a table with mask.
func idHome(id, mask uint32) uint32 {
	// Fibonacci hashing spreads the consecutive ids a table hands out.
	return uint32(uint64(id+1)*0x9e3779b97f4a7c15>>32) & mask
}

// add inserts id; it reports whether id was new.
func (s *idSet) add(id uint32) bool {
	if !s.hashed() {
		for _, v := range s.slots[:s.n] {
			if v == id+1 {
				return false
			}
		}
		if s.n < smallIDSet {
			s.slots = append(s.slots[:s.n], id+1)
			s.n++
			return true
		}
		s.rehash(idSlotsFor(s.n + 1))
	} else if (s.n+1)*4 > len(s.slots)*3 {
		s.rehash(2 * len(s.slots))
	}
	mask := uint32(len(s.slots) - 1)
	for i := idHome(id, mask); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = id + 1
			s.n++
			return true
		case id + 1:
			return false
		}
	}
}

// rehash moves the members into a table of size slots.
func (s *idSet) rehash(size int) {
	old := s.slots
	wasHashed := s.hashed()
	s.slots = make([]uint32, size)
	mask := uint32(size - 1)
	for i, v := range old {
		if v == 0 || (!wasHashed && i >= s.n) {
			continue
		}
		j := idHome(v-1, mask)
		for s.slots[j] != 0 {
			j = (j + 1) & mask
		}
		s.slots[j] = v
	}
}

// remove deletes id; it reports whether id was a member.
func (s *idSet) remove(id uint32) bool {
	if !s.hashed() {
		for i, v := range s.slots[:s.n] {
			if v == id+1 {
				s.n--
				s.slots[i] = s.slots[s.n]
				s.slots = s.slots[:s.n]
				return true
			}
		}
		return false
	}
	mask := uint32(len(s.slots) - 1)
	i := idHome(id, mask)
	for ; s.slots[i] != id+1; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			return false
		}
	}
	// Backward-shift deletion, as in objectTable.deleteSlot.
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		v := s.slots[j]
		if v == 0 {
			break
		}
		home := idHome(v-1, mask)
		if (j-home)&mask >= (j-i)&mask {
			s.slots[i] = v
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
	if s.n <= len(s.slots)/16 && len(s.slots) > 4*smallIDSet {
		// Give back the memory of a set that shrank a lot.
		s.shrink()
	}
	return true
}

// shrink rebuilds the set at the size its members need.
func (s *idSet) shrink() {
	if s.n > smallIDSet {
		s.rehash(idSlotsFor(s.n))
		return
	}
	list := make([]uint32, 0, s.n)
	for _, v := range s.slots {
		if v != 0 {
			list = append(list, v)
		}
	}
	s.slots = list
}

// all calls yield with every id until it returns false.
func (s *idSet) all(yield func(id uint32) bool) {
	if !s.hashed() {
		for _, v := range s.slots[:s.n] {
			if !yield(v - 1) {
				return
			}
		}
		return
	}
	for _, v := range s.slots {
		if v != 0 && !yield(v-1) {
			return
		}
	}
}
