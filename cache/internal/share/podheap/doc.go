// Package podheap measures the Share and Trim memory modes on real
// core/v1 Pods and Secrets, those of the compare module's kinds package,
// decoded from protobuf as a client decodes them: heap per object held,
// and CPU per Pod of each mode.
//
// It is a module of its own because the measurement needs k8s.io/api,
// which the root module must not import, and the packages it measures
// (cache/internal/share, cache/internal/project) are internal to
// cache/: the compare module, whose path is outside cache/, cannot import
// them, while this module's path is inside it. It holds only a benchmark:
//
//	cd cache/internal/share/podheap
//	go test -run '^$' -bench . -benchtime 1x -pods 10000
package podheap
