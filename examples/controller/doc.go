// Command controller is a small Kubernetes controller built on this
// library's informer and client-go's clientset and work queue. It watches
// ConfigMaps and, on those labelled example.informer-go.dev/count-keys=true,
// keeps the annotation example.informer-go.dev/data-keys equal to their
// number of data keys; it logs every ConfigMap it reconciles.
//
//	go run . -kubeconfig ~/.kube/config -namespace default -run-for 30s
//	kubectl create configmap demo --from-literal=a=1 --from-literal=b=2
//	kubectl label configmap demo example.informer-go.dev/count-keys=true
//
// It stops on SIGINT or SIGTERM, or after -run-for, and exits 0 after a
// clean shutdown. Without a kubeconfig it uses the in-cluster configuration.
package main
