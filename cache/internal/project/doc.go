// Package project trims the objects of a cache: the Trim memory mode of
// issue 23. [DropManagedFields] deletes metadata.managedFields, about a
// quarter of a Pod's heap; a [Projection] keeps only chosen field paths
// ("metadata", "spec.nodeName", "status.phase") of typed or unstructured
// objects and marks what it kept.
//
// # In place, on fresh objects
//
// Both write into the object they are given and return it, as client-go's
// TransformFunc does: the informer runs them on objects fresh from the
// decoder, which no one else holds, before the cache publishes them. They
// must never run on an object a caller still holds (one passed to the
// store's Add by user code, one read from the cache): the caller would see
// its object change. An integrator that cannot tell (a store the user
// feeds directly) projects a DeepCopy.
//
// # Keys and indexers read the full object
//
// The cache's key function and indexers must see the object before it is
// projected: compute the key and the index values first, then project.
// Every projection keeps what names the object ([AlwaysKept]: apiVersion,
// kind, metadata name, namespace, uid and resourceVersion), so a key
// computed again from a projected object (for a tombstone, say) is the
// same; an index value read from a field the projection dropped is not,
// which is why index values are computed before.
//
// # Paths
//
// A path is JSON field names joined by dots. Lists on the way are crossed:
// "spec.containers.image" keeps the image of every container (and the
// list's length). For a typed object the paths are checked against the
// type when the projection is built ([New]): a field that does not exist,
// or a selection inside a map (labels, a ResourceList), an interface, a
// byte slice or a scalar, is an error naming the path and the type. A
// dropped field of a typed object is set to its zero value (so it is left
// out of the object's JSON where the field is omitempty); a dropped key of
// an unstructured object is deleted.
//
// # The marker
//
// A projected object lacks fields the API server has: written back with
// an update, it would clear them. So a projection marks every object it
// projects with the annotation [Annotation] ("informer-go.io/projected"),
// whose value lists the kept paths; [IsProjected] and [ProjectedPaths]
// read it. An annotation survives DeepCopy and conversion, which a Go-side
// mark (a wrapper type, a registry of pointers) would not: a controller
// copies the cached object, changes the copy and sends it, and it is the
// copy that must still be recognised. A writer checks IsProjected before
// sending an object (cache.CheckWritable; clientgo.RefuseProjectedWrites
// refuses them in a client's transport); a cluster can also reject them server-side (a
// ValidatingAdmissionPolicy denying objects that carry the annotation),
// since a client that does not check sends the annotation along, and the
// API server would store it.
//
// Its cost: its key and value strings are shared by every object of the
// projection, so when the projection keeps the annotations the marker
// costs one map entry, which fits in the room the annotations map already
// has (a Go map of up to 8 entries takes 8 slots; measured: 3 bytes per
// Pod), or a map growth when it has none; when the projection drops the
// annotations, the marker is a one-entry map of its own (measured: about
// 350 bytes per Pod, a third of a Pod projected to spec.nodeName). An
// object read from the API server that already carries the annotation
// (one written back by a client that ignored the marker) reads as
// projected.
//
// DropManagedFields does not mark: kube-apiserver keeps an object's
// stored managedFields when an update omits them, so the object stays
// safe to write back.
package project
