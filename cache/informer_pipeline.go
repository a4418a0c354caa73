package cache

import (
	"fmt"
	"sync"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// pipelineConfig describes the part of an informer between its reflector and
// its handler: the queue the reflector fills and what processing a popped
// item does. [NewInformerWithOptions] and the shared informers build theirs
// with newInformerPipeline.
type pipelineConfig struct {
	logger     klog.Logger
	objectType any // names the queue: "DeltaFIFO <type>" or "RealFIFO <type>"
	clock      clock.PassiveClock

	// store is the informer's store, keyed by
	// DeletionHandlingMetaNamespaceKeyFunc; the DeltaFIFO knows its
	// objects.
	store deltaStore
	// handler is told about every change once store reflects it.
	handler ResourceEventHandler
	// drained, when not nil, is called each time the consumer finds the
	// queue empty, before it waits: handler may hold back work until then
	// (see sharedProcessor.holdRuns). It is called on the consumer's
	// goroutine without the queue's lock, and must not wait for the
	// consumer.
	drained func()
	// lock, when not nil, is held while a popped item is processed.
	lock sync.Locker

	transform TransformFunc
	// transformKeepsKeys says that transform never changes the key of an
	// object: it is only a memory mode's step (see [MemoryOptions]).
	transformKeepsKeys bool
	identifier         InformerNameAndResource
	metricsProvider    InformerMetricsProvider
	// inOrder selects the RealFIFO pipeline; see [InformerOptions.InOrder].
	inOrder bool
}

// informerPipeline is what newInformerPipeline builds: the queue of an
// informer's [Config], and how its controller pops (controllerOptions.pop).
type informerPipeline struct {
	queue Queue
	// pop pops the next item, or batch, of queue and applies it, with the
	// keys the queue computed, to the store.
	pop func() error
}

// pipelineQueue is the queue of an informer: a [DeltaFIFO] or a [RealFIFO],
// which hand their consumer the keys they computed.
type pipelineQueue interface {
	Queue
	popBatchKeyed(processBatch keyedBatchFunc, processSingle keyedProcessFunc) error
}

// newInformerPipeline builds the queue of an informer, a DeltaFIFO that knows
// the store's objects or, with cfg.inOrder, a RealFIFO in atomic mode, and
// the function that pops from it and applies what it pops to the store and
// tells the handler (a deltaProcessor's). Both queues pop with
// popBatchKeyed: the RealFIFO hands over up to 1000 deltas with distinct
// keys at once, the DeltaFIFO a whole relist or resync of an empty FIFO (a
// bulk, see takeBulks) or one key's deltas. Processing logs with the queue's
// logger, which carries the queue's name.
func newInformerPipeline(cfg pipelineConfig) informerPipeline {
	var queue pipelineQueue
	logger := cfg.logger
	if cfg.inOrder {
		f := newRealFIFO(RealFIFOOptions{
			Logger:                &logger,
			Name:                  fmt.Sprintf("RealFIFO %T", cfg.objectType),
			KeyFunction:           MetaNamespaceKeyFunc,
			Transformer:           cfg.transform,
			Identifier:            cfg.identifier,
			MetricsProvider:       cfg.metricsProvider,
			AtomicEvents:          true,
			UnlockWhileProcessing: true,
			EmitDeltaTypeBookmark: true,
		}, cfg.clock)
		f.beforeWait = cfg.drained
		queue, logger = f, f.logger
	} else {
		f := newDeltaFIFO(DeltaFIFOOptions{
			Logger:                &logger,
			Name:                  fmt.Sprintf("DeltaFIFO %T", cfg.objectType),
			KnownObjects:          cfg.store,
			EmitDeltaTypeReplaced: true,
			Transformer:           cfg.transform,
		}, cfg.clock)
		f.takeBulks(cfg.store.len)
		f.beforeWait = cfg.drained
		queue, logger = f, f.logger
	}
	p := newDeltaProcessor(logger, cfg.handler, cfg.store, cfg.lock)
	// The queues key objects with MetaNamespaceKeyFunc, which agrees with
	// the store's DeletionHandlingMetaNamespaceKeyFunc on everything they
	// queue, tombstones included: their keys fit the store as they are,
	// unless a transformer changed the objects after they were keyed.
	p.queueKeysMatch = cfg.transform == nil || cfg.transformKeepsKeys
	batch, single := p.processBatchKeyed, p.processKeyed // bound once, not per pop
	return informerPipeline{queue: queue, pop: func() error { return queue.popBatchKeyed(batch, single) }}
}
