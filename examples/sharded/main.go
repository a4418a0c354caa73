package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil) // -v and the other klog flags
	kubeconfig := flag.String("kubeconfig", os.Getenv(clientcmd.RecommendedConfigPathEnvVar), "path of the kubeconfig file; empty means in-cluster")
	namespace := flag.String("namespace", "", "namespace of the ConfigMaps and of the Leases (required)")
	id := flag.String("id", "", "identity of this replica, unique among the running ones (default: the host name)")
	slots := flag.Int("slots", 12, "number of slots the uid hash space is cut into; at least the number of replicas")
	leaseDuration := flag.Duration("lease-duration", 15*time.Second, "how long a Lease lasts without renewal")
	workers := flag.Int("workers", 2, "number of workers annotating ConfigMaps")
	runFor := flag.Duration("run-for", 0, "stop after this long; 0 runs until SIGINT or SIGTERM")
	flag.Parse()
	if *id == "" {
		*id, _ = os.Hostname()
	}
	if err := checkFlags(*namespace, *id, *slots, *leaseDuration, *workers, *runFor, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "sharded:", err)
		flag.Usage()
		os.Exit(2)
	}
	err := run(*kubeconfig, *namespace, *id, *slots, *leaseDuration, *workers, *runFor)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sharded:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, namespace, id string, slots int, leaseDuration time.Duration, workers int, runFor time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, runFor)
		defer cancel()
	}
	logger := klog.LoggerWithValues(klog.LoggerWithName(klog.Background(), "sharded"), "replica", id)
	ctx = klog.NewContext(ctx, logger)

	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("load the client configuration: %w", err)
	}
	// client-go's default of 5 requests per second would make a replica
	// taking over a slot annotate its ConfigMaps slowly.
	config.QPS, config.Burst = 50, 100
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	owner, err := NewOwner(client, namespace, id, slots)
	if err != nil {
		return err
	}
	membership := NewMembership(client.CoordinationV1(), namespace, id, slots, leaseDuration, func(owned []int) {
		if err := owner.SetOwned(owned); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Cannot move to the owned slots", "slots", owned)
		}
	})

	var wg sync.WaitGroup
	var membershipErr error
	wg.Go(func() { membershipErr = membership.Run(ctx) }) // returns when ctx ends, after leaving
	ownerErr := owner.Run(ctx, workers)
	wg.Wait()
	if err := errors.Join(ownerErr, membershipErr); err != nil {
		return err
	}
	logger.Info("Stopped")
	return nil
}

// checkFlags rejects the flag values run cannot honour. Identities name
// Leases, so they must fit in a Lease name.
func checkFlags(namespace, id string, slots int, leaseDuration time.Duration, workers int, runFor time.Duration, args []string) error {
	switch {
	case namespace == "":
		return errors.New("-namespace is required")
	case len(validation.IsDNS1123Subdomain("sharded-member-"+id)) > 0:
		return fmt.Errorf("-id %q does not make a valid Lease name: %v", id, validation.IsDNS1123Subdomain("sharded-member-"+id))
	case slots < 1:
		return fmt.Errorf("-slots must be at least 1, got %d", slots)
	case leaseDuration < 4*time.Second:
		return fmt.Errorf("-lease-duration must be at least 4s (renewals every quarter of it, in whole seconds), got %v", leaseDuration)
	case workers < 1:
		return fmt.Errorf("-workers must be at least 1, got %d", workers)
	case runFor < 0:
		return fmt.Errorf("-run-for must not be negative, got %v", runFor)
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q", args)
	}
	return nil
}
