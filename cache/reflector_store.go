package cache

// ReflectorStore is what a [Reflector] writes into: a queue or a store that
// takes the events of a list and watch.
type ReflectorStore interface {
	// Add records an object the watch reported as added.
	Add(obj any) error
	// Update records an object the watch reported as modified.
	Update(obj any) error
	// Delete records an object the watch reported as deleted.
	Delete(obj any) error
	// Replace records the complete result of a list at resourceVersion:
	// whatever the store holds that is not in the list is gone.
	Replace([]any, string) error
	// Resync asks the store to requeue what it knows, for periodic resync.
	Resync() error
}

// ReflectorBookmarkStore is implemented by a [ReflectorStore] that wants the
// resource versions of watch bookmarks.
type ReflectorBookmarkStore interface {
	// Bookmark records that the watch reached resourceVersion.
	Bookmark(resourceVersion string) error
}

// ResourceVersionUpdater is implemented by a [ReflectorStore] that wants to
// track the reflector's resource version as watch events advance it.
type ResourceVersionUpdater interface {
	// UpdateResourceVersion is called with every resource version the
	// reflector records from a watch event.
	UpdateResourceVersion(resourceVersion string)
}

// TransformingStore is a [ReflectorStore] that transforms objects before
// keeping them. The reflector applies the same transform to the objects of a
// streaming list before handing them over.
type TransformingStore interface {
	ReflectorStore
	// Transformer returns the transform function, or nil when there is none.
	Transformer() TransformFunc
}
