// Command sample-controller is the kubernetes/sample-controller pattern
// without a custom resource: a ConfigMap labelled
// example.informer-go.dev/deployment=true declares a Deployment of the same
// name, owned by it, whose replica count is the ConfigMap's "replicas" data
// key. The controller creates the Deployment, keeps its replicas in step,
// and recreates it when it is deleted.
//
//	go run . -kubeconfig ~/.kube/config -namespace default -run-for 30s
//	kubectl create configmap web --from-literal=replicas=2
//	kubectl label configmap web example.informer-go.dev/deployment=true
//
// As in sample-controller, main builds a generated informer factory and
// passes its typed informers (client-go's interfaces) to the controller,
// which uses their generated listers and a rate-limited work queue. The
// factory comes from github.com/informer-go/informer/clientgo/informers
// instead of k8s.io/client-go/informers, and the controller imports
// github.com/informer-go/informer/clientgo/cache, the drop-in for client-go's
// tools/cache, instead of client-go's: the only changes of the port are those
// two import paths. Every handler call is logged at verbosity 5 ("Handler
// event"): the end-to-end tests build the program a second time with
// client-go's two packages and compare both logs event for event.
//
// It stops on SIGINT or SIGTERM, or after -run-for, and exits 0 after a
// clean shutdown.
package main
