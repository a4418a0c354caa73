// Package prometheus exports the run metrics of informer-go's informers
// (cache.RunMetricsProvider) to Prometheus, with bounded label sets and the
// deletion of every series of an informer, or of a handler, when it stops.
//
// It is a module of its own, github.com/informer-go/informer/prometheus, so
// that the library itself does not depend on Prometheus.
//
//	reg := prometheus.NewRegistry()
//	provider, err := informerprometheus.NewProvider(reg, informerprometheus.Options{})
//	...
//	informer := cache.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, cache.SharedIndexInformerOptions{
//		Identifier:         id, // names the informer in the "informer" and "resource" labels
//		RunMetricsProvider: provider,
//	})
//
// or, for every informer created afterwards, cache.SetRunMetricsProvider(provider).
//
// # Metrics
//
// Every metric has the labels "informer" and "resource" (the name and
// resource of the informer's cache.InformerNameAndResource, empty without
// one) and "type" (the informer's object type, as in its logs). With the
// default namespace "informer":
//
//	informer_lists_total{method, result}             counter: lists, by method ("paginated", "streaming") and result ("success", "error")
//	informer_list_duration_seconds{method}           histogram: how long lists took
//	informer_list_items{method}                      histogram: objects per successful list
//	informer_watches_total{result}                   counter: watch requests ("success", "error"); a streaming list's watch counts as a list
//	informer_watch_duration_seconds                  histogram: how long watches stayed open
//	informer_watch_events                            histogram: events per watch
//	informer_relists_total{reason}                   counter: lists after the first, by reason ("expired", "too_large_resource_version", "error")
//	informer_watch_restarts_total{cause}             counter: watches that ended, by cause ("closed", "expired", "liveness", "timeout", "throttled", "error")
//	informer_events_total{event_type}                counter: watch events by type ("ADDED", "MODIFIED", "DELETED", "BOOKMARK")
//	informer_store_objects                           gauge: objects in the informer's store
//	informer_last_sync_resource_version              gauge: the newest resource version received (its last 15 digits)
//	informer_first_sync_duration_seconds             gauge: time from start to the first sync
//	informer_handler_backlog{handler}                gauge: notifications waiting for a handler
//	informer_handler_duration_seconds{handler}       histogram: how long a handler's calls took
//	informer_handler_panics_total{handler}           counter: handler calls that panicked
//
// Informers with the same labels running at the same time share their
// series (counters add up; for gauges the last write wins); the series go
// when the last of them stops. Give informers distinct identifiers to tell
// them apart.
package prometheus
