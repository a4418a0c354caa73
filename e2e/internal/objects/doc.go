// Package objects creates the objects the end-to-end benchmarks and
// scenarios fill a namespace with: ConfigMaps shaped like the realistic
// objects of the in-memory benchmarks (benchkit.NewObject: five labels, two
// annotations, an owner reference and 1 KiB of data), created through the
// API several at a time.
package objects
