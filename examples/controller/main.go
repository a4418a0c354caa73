package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil) // -v and the other klog flags
	kubeconfig := flag.String("kubeconfig", defaultKubeconfig(),
		"path of the kubeconfig file (several separated by the OS list separator); empty means in-cluster")
	namespace := flag.String("namespace", "", "namespace to watch; empty means all")
	workers := flag.Int("workers", 2, "number of workers reconciling ConfigMaps")
	runFor := flag.Duration("run-for", 0, "stop after this long; 0 runs until SIGINT or SIGTERM")
	flag.Parse()
	if err := checkFlags(*workers, *runFor, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		flag.Usage()
		os.Exit(2)
	}

	err := run(*kubeconfig, *namespace, *workers, *runFor)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, namespace string, workers int, runFor time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, runFor)
		defer cancel()
	}
	logger := klog.LoggerWithName(klog.Background(), "configmap-controller")
	ctx = klog.NewContext(ctx, logger)

	config, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	controller, err := NewController(ctx, client, namespace)
	if err != nil {
		return err
	}
	if err := controller.Run(ctx, workers); err != nil {
		return err
	}
	logger.Info("Stopped")
	return nil
}

// checkFlags rejects the flag values run cannot honour: no workers would
// never reconcile anything, and a negative -run-for is a typo, not
// "forever". The program takes no arguments.
func checkFlags(workers int, runFor time.Duration, args []string) error {
	switch {
	case workers < 1:
		return fmt.Errorf("-workers must be at least 1, got %d", workers)
	case runFor < 0:
		return fmt.Errorf("-run-for must not be negative, got %v", runFor)
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q", args)
	}
	return nil
}

// defaultKubeconfig returns $KUBECONFIG if set, otherwise ~/.kube/config if
// it exists, otherwise "" (in-cluster).
func defaultKubeconfig() string {
	if path := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); path != "" {
		return path
	}
	if home, err := os.UserHomeDir(); err == nil {
		path := filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}

// restConfig loads the client configuration from kubeconfig, or from the
// pod's service account when kubeconfig is empty.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		config, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no kubeconfig given and not running in a cluster: %w", err)
		}
		return config, nil
	}
	// Several files are merged, as kubectl merges those of $KUBECONFIG; a
	// single one must exist.
	paths := filepath.SplitList(kubeconfig)
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	if len(paths) == 1 {
		rules = &clientcmd.ClientConfigLoadingRules{ExplicitPath: paths[0]}
	}
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", kubeconfig, err)
	}
	return config, nil
}
