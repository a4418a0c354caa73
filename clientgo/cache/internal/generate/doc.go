// Package generate writes and checks the drop-in package
// github.com/informer-go/informer/clientgo/cache against client-go's
// tools/cache. It has only tests: TestGeneratedSourceIsUpToDate writes
// ../../zz_generated.go (go generate in the drop-in package runs it with
// -update) and TestAPI checks that the package has every exported name of
// client-go's, denoting the same thing.
package generate

// clientGoCache is the import path of the package the drop-in replaces.
const clientGoCache = "k8s.io/client-go/tools/cache"

// dropInCache is the import path of the drop-in.
const dropInCache = "github.com/informer-go/informer/clientgo/cache"
