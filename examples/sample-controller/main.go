package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	kubeinformers "github.com/informer-go/informer/clientgo/informers"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", os.Getenv(clientcmd.RecommendedConfigPathEnvVar), "path of the kubeconfig file; empty means in-cluster")
	namespace := flag.String("namespace", metav1.NamespaceAll, "namespace to manage; empty means all")
	runFor := flag.Duration("run-for", 0, "stop after this long; 0 runs until SIGINT or SIGTERM")
	resync := flag.Duration("resync", 30*time.Second, "resync period of the informers; 0 disables resyncs")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *runFor)
		defer cancel()
	}
	logger := klog.LoggerWithName(klog.Background(), "sample-controller")
	ctx = klog.NewContext(ctx, logger)
	if err := run(ctx, *kubeconfig, *namespace, *resync); err != nil {
		klog.Flush()
		fmt.Fprintln(os.Stderr, "sample-controller:", err)
		os.Exit(1)
	}
	logger.Info("Stopped")
	klog.Flush()
}

func run(ctx context.Context, kubeconfig, namespace string, resync time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	kubeInformerFactory := kubeinformers.NewSharedInformerFactoryWithOptions(kubeClient, resync, kubeinformers.WithNamespace(namespace))
	controller, err := NewController(ctx, kubeClient,
		kubeInformerFactory.Apps().V1().Deployments(),
		kubeInformerFactory.Core().V1().ConfigMaps())
	if err != nil {
		return err
	}
	kubeInformerFactory.Start(ctx.Done())
	defer kubeInformerFactory.Shutdown() // after ctx ended: waits for the informers
	return controller.Run(ctx, 2)
}
