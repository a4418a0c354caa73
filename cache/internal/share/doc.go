// Package share stores once the values that repeat across the objects of
// a cache: the Share memory mode of issue 23. A [Table] walks an object
// fresh from the decoder and replaces each of its strings (label and
// annotation keys and values, namespaces, owner references, images, env
// names...) by the table's canonical copy of an equal string, so that the
// thousand Pods of a Deployment hold one copy of each of their common
// values instead of a thousand. With [Options.Bytes] it does the same for
// byte slices.
//
// # What readers see
//
// Ordinary objects, at unchanged cost: a shared string is a string like
// any other, and strings are immutable. The object's value never changes:
// reflect.DeepEqual holds between an object before and after Share, which
// the model and fuzz tests check.
//
// Byte slices are mutable. Two objects that share a backing array see each
// other's writes, so sharing them is safe only because the cache's objects
// are never mutated (the contract of every informer: a caller that wants
// to change an object changes a DeepCopy, which copies the slices). A
// canonical slice has its capacity equal to its length, so an append to it
// copies instead of writing into the shared array. A caller that breaks
// the contract and writes into FieldsV1.Raw or a Secret's data in place
// corrupts every object sharing it, not only its own; the cache's mutation
// detector (KUBE_CACHE_MUTATION_DETECTOR) finds such writes. Measured
// (package podheap): on Pods the option saves nothing, as their
// managedFields hold per-Pod values (owner uid, token volume, IPs) and are
// never byte-identical; on cert-manager-style TLS Secrets it saves 23 % of
// the heap (9.1 to 7.0 KB per Secret, against 2.4 % for strings alone):
// the CA certificate repeats per issuer and the managedFields of one
// manager with one field set repeat across Secrets. Built with
// apimachinery's fieldsv1string tag, FieldsV1 holds an unexported
// unique.Handle instead of Raw, already interned by apimachinery, which
// Share leaves alone.
//
// # Structures
//
// With [Options.Structures], Share also replaces whole values deeply equal
// to one already shared: the label map, owner references, tolerations,
// container env and ports, probes and resource lists that the Pods of a
// Deployment repeat are then one copy, not one per Pod. It is
// hash-consing, bottom up, in a second walk of typed objects after their
// strings are canonical: each pointer, slice (other than a byte slice) and
// map, its own children done first, is looked up by the hash of its bytes
// (a pointer's target, a slice's elements; a map's entries, in any order)
// and its type, and replaced by the canonical copy when their bytes are
// equal. Strings inside compare equal exactly when they are the same
// canonical copy, and so do pointers, slices and maps, so the comparison
// is exact, if strict: a value holding a string seen only once, or an
// unexported pointer, is left alone. Values whose type holds an
// interface, a channel or a function are left alone, and so are pointers
// to and slices of
// values holding a resource.Quantity inline, whose String method caches
// into the Quantity it reads: shared, a reader's call could write into
// memory other objects use (a Quantity in a map, such as a ResourceList's,
// is shared: map values cannot be written through a method).
//
// Unstructured objects are shared the same way, in the string walk: once
// a map's or a list's values are done, the map (by its entries: key bytes
// and value identities) or the list (by its elements' identities) is
// replaced by its canonical copy. Their booleans and numbers are boxed in
// interfaces, each box allocated by the decoder, so with Structures the
// walk replaces them by cached boxes first, which makes equal numbers the
// same memory, as equal strings are. A list held by an interface is
// identified by its array and length, not its box. Lists of lists are
// compared by their inner lists' boxes, so rarely shared.
//
// Pointers to small pointer-free values (*bool, *int64, *int32: many in
// an object, few in value) and the boxed numbers and booleans of
// unstructured objects go through a small cache instead, held strongly:
// two candidate slots per value among 512, at most 512 values of at most
// 16 bytes.
//
// A value nested d maps, lists or pointers deep is shared from about the
// (d+2)th object holding it on: its children become canonical first, one
// sighting at a time. The objects of one template (the Pods of the
// Deployments of one app) share their deep values once a few of them have
// been seen.
//
// As for strings, a value is admitted on its second sighting (the
// doorkeeper's tags are shared), its canonical copy is the memory of the
// object that showed it then, and the table refers to it weakly, with its
// type: a copy never replaces a value of another type, so memory is never
// read with another layout. A replaced slice gets its capacity cut to its
// length, so that an append copies.
//
// The contract is the cache's: objects are never mutated once shared. A
// caller that writes into a shared map, slice or struct changes every
// object that shares it. Share writes only into the object it is given:
// it descends into a value before replacing it, never into its
// replacement. It must therefore run on objects fresh from the decoder;
// sharing an object again is harmless in value, but may write into memory
// other objects share (a child admitted since), which is a data race with
// their readers.
//
// # The walk
//
// Share follows a per-type plan, built once by reflection and cached
// (like encoding/json's): the offsets of a type's strings, byte slices,
// pointers, slices, maps and interfaces, the fields of nested structs
// flattened into one list. A type holding no string has no plan and is
// not walked (metav1.Time, numbers, []int32). Only exported fields are
// followed, plus resource.Quantity's unexported cached string (its
// canonical form, "500m", set when it is parsed): replacing it by an equal
// string changes nothing. Maps are walked in place (a string key is
// replaced by assigning to it, which stores the canonical key), with fast
// paths for map[string]string, map[string]any and map[string][]byte and
// reflection for the others (a ResourceList's key is a named string type).
// An interface holding a pointer, map or slice is walked in place; one
// holding a string is replaced by the canonical box of that string, so an
// unstructured object's values share their boxes too, not only their
// bytes; other values boxed in an interface are left alone, since a box
// may be shared or read-only. Channels, functions and unsafe pointers are
// left alone. A walk stops descending at a depth of 1000 and after a
// million values, so cycles (a pointer cycle, a map holding itself) and
// exponentially shared structures end; what it did not reach stays as it
// was, which is still correct.
//
// Already canonical values are recognised by their data pointer, after
// one hash and one table look-up: a second Share of the same object writes
// nothing and allocates nothing.
//
// # Forgetting
//
// A long-running informer sees values come and go (Pod names, node names,
// image tags), so a table that only grows is a leak. The table holds its
// canonical copies through weak pointers only (package weak): a copy
// lives exactly as long as an object uses it, and once the last such
// object is gone the garbage collector frees it and its entry goes dead.
// Dead entries are dropped by a sweep that runs whenever a set's slot
// array fills to three quarters and moves the live entries to an array of
// twice their number (amortised O(1) per insert, at most about twice the
// live entries, and the array shrinks once most values died), or by
// [Table.Sweep].
//
// Package unique does not fit: unique.Make(s).Value() returns a string
// whose bytes are not kept alive by the handle's map entry, which lives
// only as long as a Handle does; objects hold strings, not handles, so
// after the next garbage collection unique.Make hands out a new copy for
// the same value and sharing restarts from zero every cycle.
//
// Canonical copies are allocated by the table (a copy of the first
// admitted occurrence, so a string that was a slice of a larger buffer
// never pins it), padded to 16 bytes: the allocator batches smaller
// pointer-free objects into shared slots, where a weak pointer stays valid
// while any object of the slot lives.
//
// # Values seen once
//
// Most objects also hold values unique to them (name, IPs, container
// ids). An entry for such a value would cost memory (about 95 bytes of
// heap, measured: the table's slot, the doorkeeper's share and the weak
// handle, plus the runtime's 32-byte record of the weak pointer off the
// heap) and save nothing, so a value is admitted only on its second
// sighting: a doorkeeper of 32-bit hash tags, four-way set associative and
// first in first out within a set, four slots per canonical string (4,096
// to 1M slots), remembers the first. The first object holding a value
// keeps its own copy; later ones share the canonical one. The sightings
// of one Share are recorded when it ends, so a value an object holds
// twice (a Pod's IP in podIP and podIPs, its token volume's name in every
// volume mount) is not admitted by that object alone. An update of an
// object shows its own values a second time, so they are admitted then;
// the uid and resourceVersion, unique to every object and version, are
// not walked at all. Two live values of one length whose 64-bit hashes
// share their upper half leave the newcomer unshared.
//
// # Integration
//
// One Table per informer (or one per process, to share across informers),
// and Share on every object the cache stores, in the informer's own
// transform step, after the user's transform: the object is fresh from the
// decoder and not yet visible to any reader. Share serialises its callers
// on the table's mutex, held for one object's walk.
package share
