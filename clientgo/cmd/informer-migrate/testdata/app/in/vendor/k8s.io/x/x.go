package x

import "k8s.io/client-go/tools/cache"

var _ cache.Store
