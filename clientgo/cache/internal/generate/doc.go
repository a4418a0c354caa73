// Package generate writes and checks the drop-in package
// github.com/informer-go/informer/clientgo/cache against client-go's
// tools/cache. It has only tests: TestGeneratedSourceIsUpToDate writes
// ../../zz_generated.go (go generate in the drop-in package runs it with
// -update) and TestAPI checks that the package has every exported name of
// client-go's, denoting the same thing.
package generate
