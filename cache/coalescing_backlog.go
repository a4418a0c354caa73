package cache

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
)

// coalescingBacklog holds pending notifications of one handler merged per
// object key, in the order the keys were first touched; see
// [HandlerOptions.Coalesce] and [HandlerOptions.MaxBacklog] for the contract.
// It is the part of a listener's backlog that does not grow with the number
// of events: at most two notifications per key.
//
// Each entry remembers the handler's view of its object before the entry's
// first notification (absent, or the object it was last given) and the
// object's latest state; what the handler is told is the difference:
//
//	view before     latest state    notifications
//	absent          absent          none (an add followed by a delete cancels out)
//	absent          present         add(latest)
//	present(old)    absent          delete(the first deleted state)
//	present(old)    present         update(old, latest), or delete then
//	                                add(latest) if it was deleted in between
//
// A stale entry (after the backlog overflowed, see markStale) keeps only the
// view before; its latest state is read from the informer's store when the
// handler gets to it (refresh).
//
// The zero value is an empty backlog. It is not safe for concurrent use: the
// listener guards it with its mutex.
type coalescingBacklog struct {
	// entries maps the key of every entry to it; an entry is in entries if
	// and only if it is in the list from head to tail.
	entries    map[string]*backlogEntry
	head, tail *backlogEntry
	// count is the number of notifications the entries hold: the sum of
	// their sizes.
	count int
	// peak is the largest number of entries since the backlog last drained.
	peak int
	// stale says that new notifications only mark their key's entry stale:
	// set by markStale, cleared when the backlog drains.
	stale bool
	// unkeyed numbers the entries of notifications whose key could not be
	// computed; each gets a key of its own and is never merged.
	unkeyed uint64
}

// backlogEntry is the merged pending notifications of one object.
type backlogEntry struct {
	key        string
	prev, next *backlogEntry

	// hadBefore says whether the handler's view had the object before the
	// entry's first notification; before is that object (nil if unknown:
	// a tombstone without its object).
	hadBefore bool
	before    any
	// wasDeleted says whether a delete came after the view before;
	// deleted is the object of the first such delete, as it was handed
	// over (possibly a tombstone).
	wasDeleted bool
	deleted    any
	// present says whether the latest state has the object; latest is it.
	present bool
	latest  any
	// initial counts the initial-list adds merged into the entry: each had
	// its listener's sync tracker started.
	initial int
	// stale: latest is not kept; the store has it (see refresh).
	stale bool
	// exact: the entry holds one notification that could not be keyed; it
	// is delivered as it is and never merged or made stale.
	exact notification
	// isExact says that exact is used.
	isExact bool
}

// backlogDrainedReset is the peak number of entries above which a drained
// backlog gives its map back, so that a burst over many keys does not keep
// its memory.
const backlogDrainedReset = 1024

// len returns the number of notifications the backlog holds. A stale entry
// counts as one.
func (b *coalescingBacklog) len() int { return b.count }

// front returns the oldest entry, or nil.
func (b *coalescingBacklog) front() *backlogEntry { return b.head }

// add merges n, a notification about the object of key, into the backlog.
// It returns how many initial-list adds it cancelled: their sync must be
// finished by the caller, since no add will be delivered for them.
func (b *coalescingBacklog) add(key string, n notification) (cancelled int) {
	e := b.entries[key]
	if e == nil {
		e = &backlogEntry{key: key}
		e.start(n)
		if b.stale {
			e.makeStale()
		}
		b.pushBack(e)
		b.count += e.size()
		return 0
	}
	b.count -= e.size()
	if e.stale {
		if n.isInitialAdd() {
			e.initial++
		}
	} else {
		e.merge(n)
	}
	if e.size() == 0 {
		cancelled = e.initial
		b.remove(e)
		return cancelled
	}
	b.count += e.size()
	return 0
}

// addUnkeyed appends n, whose key could not be computed, as an entry of its
// own that is delivered as it is.
func (b *coalescingBacklog) addUnkeyed(n notification) {
	b.unkeyed++
	e := &backlogEntry{key: "\x00unkeyed/" + strconv.FormatUint(b.unkeyed, 10), exact: n, isExact: true}
	b.pushBack(e)
	b.count++
}

// keyedNotification is a notification with the key of its object; ok is
// false when the key could not be computed.
type keyedNotification struct {
	key string
	ok  bool
	n   notification
}

// markStale makes the backlog forget the latest states it holds and keep, per
// key, only the handler's view before: of the notifications older than every
// entry (older, oldest first, as the listener's buffer held them) and of the
// entries. From then until the backlog drains, new notifications only mark
// their key. It is how a backlog past its cap stops holding events.
func (b *coalescingBacklog) markStale(older []keyedNotification) {
	old := *b
	*b = coalescingBacklog{stale: true, unkeyed: old.unkeyed, peak: old.peak}
	for _, kn := range older {
		if !kn.ok {
			b.addUnkeyed(kn.n)
			continue
		}
		b.add(kn.key, kn.n)
	}
	for e := old.head; e != nil; {
		next := e.next
		e.prev, e.next = nil, nil
		if prior := b.entries[e.key]; prior != nil {
			// An older notification set the view before; keep it.
			b.count -= prior.size()
			prior.initial += e.initial
			b.count += prior.size()
		} else {
			if !e.isExact {
				e.makeStale()
			}
			b.pushBack(e)
			b.count += e.size()
		}
		e = next
	}
}

func (b *coalescingBacklog) pushBack(e *backlogEntry) {
	if b.entries == nil {
		b.entries = make(map[string]*backlogEntry)
	}
	b.entries[e.key] = e
	e.prev = b.tail
	if b.tail != nil {
		b.tail.next = e
	} else {
		b.head = e
	}
	b.tail = e
	b.peak = max(b.peak, len(b.entries))
}

// remove takes e out of the backlog. Once the backlog is empty it leaves
// stale mode and, after a large burst, gives its map back.
func (b *coalescingBacklog) remove(e *backlogEntry) {
	delete(b.entries, e.key)
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		b.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		b.tail = e.prev
	}
	e.prev, e.next = nil, nil
	if b.head == nil {
		b.stale = false
		if b.peak > backlogDrainedReset {
			b.entries = nil
		}
		b.peak = 0
	}
}

// start sets e from n, the first notification of its object.
func (e *backlogEntry) start(n notification) {
	switch n.kind {
	case addNotification:
		e.present, e.latest = true, n.newObj
		if n.isInInitialList {
			e.initial = 1
		}
	case updateNotification:
		e.hadBefore, e.before = true, n.oldObj
		e.present, e.latest = true, n.newObj
	case deleteNotification:
		e.hadBefore, e.before = true, lastKnownState(n.oldObj)
		e.wasDeleted, e.deleted = true, n.oldObj
	}
}

// merge folds n, a later notification of e's object, into e.
func (e *backlogEntry) merge(n notification) {
	switch n.kind {
	case addNotification:
		e.present, e.latest = true, n.newObj
		if n.isInInitialList {
			e.initial++
		}
	case updateNotification:
		e.present, e.latest = true, n.newObj
	case deleteNotification:
		if e.hadBefore && !e.wasDeleted {
			e.wasDeleted, e.deleted = true, n.oldObj
		}
		e.present, e.latest = false, nil
	}
}

// makeStale drops what e knows beyond the handler's view before.
func (e *backlogEntry) makeStale() {
	e.stale = true
	e.wasDeleted, e.deleted = false, nil
	e.present, e.latest = false, nil
}

// size is the number of notifications e stands for.
func (e *backlogEntry) size() int {
	switch {
	case e.isExact, e.stale:
		return 1
	case !e.hadBefore && !e.present:
		return 0
	case e.hadBefore && e.present && e.wasDeleted:
		return 2
	default:
		return 1
	}
}

// takeFront removes the first notification of the oldest entry and returns
// it, with the number of the entry's initial-list adds that are not
// delivered as such: their sync must be finished by the caller. Of an object
// deleted and added again it takes the delete and leaves the add, as an
// entry without a view before, in its place, where later notifications
// still merge into it. It reports false, taking nothing, when the backlog is
// empty or its oldest entry is stale (see refresh).
func (b *coalescingBacklog) takeFront() (n notification, finished int, ok bool) {
	e := b.head
	if e == nil || e.stale {
		return notification{}, 0, false
	}
	b.count -= e.size()
	n, finished = e.takeFirst()
	if e.size() == 0 {
		b.remove(e)
	} else {
		b.count += e.size()
	}
	return n, finished, true
}

// refresh gives up to max stale entries at the front of the backlog their
// object's current state, read with get (see backlogEntry.refresh), and
// removes those left with nothing to tell. It returns the number of initial
// adds of the removed entries, which the caller must finish. A refreshed
// entry may hold two notifications (a delete and an add).
func (b *coalescingBacklog) refresh(get func(key string) (any, bool), max int) (finished int) {
	for e := b.head; e != nil && e.stale && max > 0; max-- {
		next := e.next
		b.count -= e.size()
		e.refresh(get(e.key))
		if e.size() == 0 {
			finished += e.initial
			b.remove(e)
		} else {
			b.count += e.size()
		}
		e = next
	}
	return finished
}

// takeFirst removes the first notification of e, which is not stale, and
// returns it with the number of e's initial-list adds it finishes without
// delivering them as such. e is left empty (size 0), except after the
// delete of an object deleted and added again: then it holds the add, as
// an entry with no view before.
func (e *backlogEntry) takeFirst() (notification, int) {
	switch {
	case e.isExact:
		n := e.exact
		e.isExact, e.exact = false, notification{}
		return n, 0
	case !e.hadBefore: // and present: empty entries are removed
		n, finished := e.addOf(e.latest)
		e.present, e.latest, e.initial = false, nil, 0
		return n, finished
	case !e.present:
		n, finished := notification{kind: deleteNotification, oldObj: e.deleted}, e.initial
		e.hadBefore, e.before, e.wasDeleted, e.deleted, e.initial = false, nil, false, nil, 0
		return n, finished
	case e.wasDeleted:
		n := notification{kind: deleteNotification, oldObj: e.deleted}
		e.hadBefore, e.before, e.wasDeleted, e.deleted = false, nil, false, nil
		return n, 0
	default:
		n, finished := notification{kind: updateNotification, oldObj: e.before, newObj: e.latest}, e.initial
		*e = backlogEntry{key: e.key, prev: e.prev, next: e.next}
		return n, finished
	}
}

// refresh makes e, which is stale, an ordinary entry whose latest state is
// the object's current state in the store (current, if exists): its
// notifications then take the handler from its view before to that state.
// An object gone from the store is deleted with a [DeletedFinalStateUnknown]
// carrying that view; one stored under another uid is deleted so, then
// added.
func (e *backlogEntry) refresh(current any, exists bool) {
	e.stale = false
	if e.hadBefore && (!exists || e.before == nil || !sameIncarnation(e.before, current)) {
		e.wasDeleted, e.deleted = true, DeletedFinalStateUnknown{Key: e.key, Obj: e.before}
	}
	if exists {
		e.present, e.latest = true, current
	}
}

// addOf returns an add of obj, counted towards the sync if any initial add
// was merged into e, and the number of e's other initial adds.
func (e *backlogEntry) addOf(obj any) (notification, int) {
	return notification{kind: addNotification, isInInitialList: e.initial > 0, newObj: obj}, max(e.initial-1, 0)
}

// lastKnownState returns the object of a deletion: the object inside a
// tombstone, or obj itself.
func lastKnownState(obj any) any {
	if tomb, ok := asTombstone(obj); ok {
		return tomb.Obj
	}
	return obj
}

// sameIncarnation reports whether a and b are states of the same object: they
// do not both carry a uid, or their uids are equal. A different uid under the
// same key means the object was deleted and created again.
func sameIncarnation(a, b any) bool {
	ma, errA := meta.Accessor(a)
	mb, errB := meta.Accessor(b)
	if errA != nil || errB != nil || ma.GetUID() == "" || mb.GetUID() == "" {
		return true
	}
	return ma.GetUID() == mb.GetUID()
}
