package cache

import "errors"

// encodeOptions configures the encoded store of the Encode memory mode.
type encodeOptions struct {
	// DecodedCacheSize is how many recently read objects stay decoded.
	DecodedCacheSize int
}

// newEncodedThreadSafeStore is a stub until the Encode engine lands: it
// always fails.
func newEncodedThreadSafeStore(indexers Indexers, opts encodeOptions) (ThreadSafeStore, error) {
	//lint:ignore ST1005 the wording the other branch's engine replaces
	return nil, errors.New("Encode memory mode: not built yet")
}
