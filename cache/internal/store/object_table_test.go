package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// check verifies the table's invariants: every stored key is found at its
// id, the slots hold exactly the stored ids with their keys and hashes, every
// entry names the slot of its key, the free list holds exactly the free ids,
// and no probe run has a gap.
func (t *objectTable) check() error {
	var errs []error
	live, inSlots := 0, 0
	for id, e := range t.entries {
		if e.obj == nil {
			if e.slot != 0 {
				errs = append(errs, fmt.Errorf("free id %d keeps slot %d", id, e.slot))
			}
			continue
		}
		live++
		key := t.keyAt(uint32(id))
		if i := t.find(key, t.hash(key)); i < 0 || t.slots[i].id() != uint32(id) {
			errs = append(errs, fmt.Errorf("find(%q) = slot %d; want the slot of id %d", key, i, id))
		}
	}
	for i, s := range t.slots {
		if s.hashID == 0 {
			if s.key != "" {
				errs = append(errs, fmt.Errorf("empty slot %d keeps key %q", i, s.key))
			}
			continue
		}
		inSlots++
		id := s.id()
		if int(id) >= len(t.entries) || t.entries[id].obj == nil {
			errs = append(errs, fmt.Errorf("slot holds id %d, which is not stored", id))
			continue
		}
		if t.entries[id].slot != uint32(i) {
			errs = append(errs, fmt.Errorf("entry of id %d names slot %d, its key is in slot %d", id, t.entries[id].slot, i))
		}
		if uint32(s.hashID>>32) != t.hash(s.key) {
			errs = append(errs, fmt.Errorf("slot of id %d holds a hash that is not its key's", id))
		}
	}
	if live != t.live || inSlots != t.live {
		errs = append(errs, fmt.Errorf("live = %d, stored entries %d, occupied slots %d", t.live, live, inSlots))
	}
	if len(t.free) != len(t.entries)-live {
		errs = append(errs, fmt.Errorf("%d free ids listed, %d free entries", len(t.free), len(t.entries)-live))
	}
	for _, id := range t.free {
		if t.entries[id].obj != nil {
			errs = append(errs, fmt.Errorf("free list holds stored id %d", id))
		}
	}
	return errors.Join(errs...)
}

// check verifies that the index agrees with the table: no empty bucket, every
// bucket's ids are stored and list the bucket, and every stored id's buckets
// hold it and are the current buckets of their values.
func (i *storeIndex) check(t *objectTable) error {
	var errs []error
	for pos, byValue := range i.buckets {
		for v, b := range byValue {
			if b.value != v {
				errs = append(errs, fmt.Errorf("index %q: bucket %q is filed under %q", i.set.names[pos], b.value, v))
			}
			if b.ids.len() == 0 {
				errs = append(errs, fmt.Errorf("index %q keeps an empty bucket for %q", i.set.names[pos], v))
			}
			for id := range b.ids.all {
				if int(id) >= len(t.entries) || t.entries[id].obj == nil {
					errs = append(errs, fmt.Errorf("index %q, value %q: id %d is not stored", i.set.names[pos], v, id))
					continue
				}
				if !slices.Contains(i.listOf(id).at(pos), b) {
					errs = append(errs, fmt.Errorf("index %q, value %q: id %d does not list the bucket", i.set.names[pos], v, id))
				}
			}
		}
	}
	for id := range i.refs {
		l := i.refs[id]
		if l == nil {
			continue
		}
		if t.entries[id].obj == nil {
			errs = append(errs, fmt.Errorf("free id %d keeps buckets", id))
			continue
		}
		for pos := range i.set.names {
			for _, b := range l.at(pos) {
				if i.buckets[pos][b.value] != b {
					errs = append(errs, fmt.Errorf("id %d lists a stale bucket %q of index %q", id, b.value, i.set.names[pos]))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// TestObjectTableMatchesMap runs random puts and removes against a map,
// checking the table's contents and invariants after each step.
func TestObjectTableMatchesMap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keys     int
		capacity int
	}{
		{name: "few keys", keys: 5},
		{name: "many keys", keys: 300},
		{name: "presized", keys: 300, capacity: 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.keys)))
			table := newObjectTable(tc.capacity)
			model := map[string]any{}
			for step := range 5000 {
				if step == 2500 {
					// Make room for more keys than there are: nothing
					// stored may move out of reach.
					table.reserve(2*tc.keys + 10)
					if err := table.check(); err != nil {
						t.Fatalf("after reserve: %v", err)
					}
				}
				key := "ns/" + strconv.Itoa(r.IntN(tc.keys))
				if r.IntN(3) == 0 {
					_, old, ok := table.remove(key)
					want, wantOK := model[key]
					if ok != wantOK || old != want {
						t.Fatalf("step %d: remove(%q) = %v, %v; want %v, %v", step, key, old, ok, want, wantOK)
					}
					delete(model, key)
				} else {
					obj := any(step)
					_, old, existed := table.put(key, obj)
					want, wantOK := model[key]
					if existed != wantOK || old != want {
						t.Fatalf("step %d: put(%q) = %v, %v; want %v, %v", step, key, old, existed, want, wantOK)
					}
					model[key] = obj
				}
				if step%97 == 0 || tc.keys < 10 {
					if err := table.check(); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				}
			}
			if table.len() != len(model) {
				t.Errorf("len() = %d, want %d", table.len(), len(model))
			}
			for key, want := range model {
				if got, ok := table.get(key); !ok || got != want {
					t.Errorf("get(%q) = %v, %v; want %v", key, got, ok, want)
				}
				if got, ok := table.getBytes([]byte(key)); !ok || got != want {
					t.Errorf("getBytes(%q) = %v, %v; want %v", key, got, ok, want)
				}
			}
			if _, ok := table.getBytes([]byte("absent")); ok {
				t.Error("getBytes found an absent key")
			}
		})
	}
}

// TestIDSetMatchesMap runs random adds and removes against a map, across
// the list and table forms of the set.
func TestIDSetMatchesMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  int
	}{
		{name: "list", ids: smallIDSet},
		{name: "list and table", ids: 40},
		{name: "table", ids: 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(tc.ids)))
			var s idSet
			model := map[uint32]bool{}
			for step := range 20000 {
				id := uint32(r.IntN(tc.ids))
				// Remove more than add now and then, so that the set
				// shrinks back to a list.
				if r.IntN(2) == 0 || (step/2000)%2 == 1 && r.IntN(4) != 0 {
					if got := s.remove(id); got != model[id] {
						t.Fatalf("step %d: remove(%d) = %v, want %v", step, id, got, model[id])
					}
					delete(model, id)
				} else {
					if got := s.add(id); got == model[id] {
						t.Fatalf("step %d: add(%d) = %v, want %v", step, id, got, !model[id])
					}
					model[id] = true
				}
				if s.len() != len(model) {
					t.Fatalf("step %d: len() = %d, want %d", step, s.len(), len(model))
				}
			}
			var got []uint32
			for id := range s.all {
				got = append(got, id)
			}
			var want []uint32
			for id := range model {
				want = append(want, id)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("ids = %v, want %v", got, want)
			}
		})
	}
}
