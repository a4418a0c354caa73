package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/clientgo/cache"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", os.Getenv(clientcmd.RecommendedConfigPathEnvVar), "path of the kubeconfig file; empty means in-cluster")
	namespace := flag.String("namespace", metav1.NamespaceDefault, "namespace of the pods")
	runFor := flag.Duration("run-for", 0, "stop after this long; 0 runs until SIGINT or SIGTERM")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *runFor)
		defer cancel()
	}
	logger := klog.LoggerWithName(klog.Background(), "pod-controller")
	ctx = klog.NewContext(ctx, logger)
	if err := run(ctx, *kubeconfig, *namespace); err != nil {
		klog.Flush()
		fmt.Fprintln(os.Stderr, "workqueue:", err)
		os.Exit(1)
	}
	logger.Info("Stopped")
	klog.Flush()
}

func run(ctx context.Context, kubeconfig, namespace string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	podListWatcher := cache.NewListWatchFromClient(clientset.CoreV1().RESTClient(), "pods", namespace, fields.Everything())
	return NewController(klog.FromContext(ctx), podListWatcher, os.Stdout).Run(ctx)
}
