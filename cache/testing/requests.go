package framework

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Verbs of a recorded [Request].
const (
	VerbList  = "list"
	VerbWatch = "watch"
)

// Request is one list or watch call as the server received it.
type Request struct {
	// Verb is [VerbList] or [VerbWatch].
	Verb string
	// Namespace is the namespace of the call; "" means all namespaces.
	Namespace string
	// Options are the options as the client sent them.
	Options metav1.ListOptions
}

// Requests returns every list and watch call received so far, oldest first,
// including those that failed. The result is a copy the caller owns.
func (s *Server[T]) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{Verb: r.Verb, Namespace: r.Namespace, Options: *r.Options.DeepCopy()}
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server[T]) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

func (s *Server[T]) recordLocked(verb, namespace string, opts metav1.ListOptions) {
	s.requests = append(s.requests, Request{Verb: verb, Namespace: namespace, Options: *opts.DeepCopy()})
}
