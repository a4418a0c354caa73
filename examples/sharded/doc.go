// Command sharded is a controller that runs as several replicas, each
// watching and working on its own shard of the ConfigMaps of a namespace
// through kube-apiserver's sharded list and watch (Kubernetes 1.36,
// feature gate ShardedListAndWatch; without the gate each replica filters
// on its side and the program works the same). Its work is small: every
// ConfigMap it owns gets the annotation example.informer-go.dev/owner set
// to the replica's identity, so that ownership shows in the cluster.
//
//	go run . -kubeconfig ~/.kube/config -namespace demo -id replica-a &
//	go run . -kubeconfig ~/.kube/config -namespace demo -id replica-b &
//	kubectl -n demo get configmaps -o custom-columns=NAME:.metadata.name,OWNER:.metadata.annotations.example\.informer-go\.dev/owner
//
// # Membership
//
// The hash space of ConfigMap uids is cut into -slots equal slots (12 by
// default: shards of the 64-bit FNV-1a hash the apiserver places objects
// by, see cache.ShardSelectorFor). Replicas coordinate through Leases
// (coordination.k8s.io/v1) in the namespace, labelled
// example.informer-go.dev/sharded:
//
//   - Each replica holds a member Lease, sharded-member-<id>, renewed every
//     quarter of -lease-duration. The live replicas are those whose member
//     Lease is not expired; sorted by identity, replica k of n is assigned
//     slots k·slots/n up to (k+1)·slots/n, so all replicas that see the
//     same members agree on n, on their index and on the assignment.
//   - Each slot has a slot Lease, sharded-slot-<j>, whose holder owns the
//     slot. A replica acquires a slot assigned to it only while the slot
//     Lease is free (released, or expired), by a write the apiserver
//     accepts for one replica only (resourceVersion precondition); it
//     renews the Leases it holds every quarter of the lease duration.
//   - A replica's informer watches the union of the slots it owns
//     (cache.ShardedListWatch); when that changes it hands over to the new
//     union without a relist: deletes for the ConfigMaps that left, adds for
//     those that entered.
//
// # The handover rule
//
// A replica owns a slot from the moment its write acquiring the slot Lease
// succeeded until the earliest of: it releases the Lease, or three quarters
// of the lease duration have passed since its last successful renewal. To
// release a slot (it is assigned to another replica now, or the program
// stops) it first stops owning it — no reconcile of that slot is running
// or will start — and only then writes the Lease free. The guarantees:
//
//   - No ConfigMap is owned by two replicas at once: a slot Lease has one
//     holder at a time (the apiserver's optimistic concurrency decides
//     between replicas acquiring it together), a replica stops owning a
//     slot before it frees the Lease, and a replica that cannot renew stops
//     owning a quarter of the lease duration before the Lease expires for
//     others (the margin absorbs clock skew between replicas up to a
//     quarter of the lease duration).
//   - No ConfigMap is owned by none for longer than the lease duration: a
//     replica leaving gracefully releases its slots at once, and the
//     replicas they are assigned to acquire them when they see the release;
//     a replica that dies renewed its Leases at most a quarter of the lease
//     duration before, and the others wake when its Leases expire and take
//     the slots at once, so the slots are without owner for at most the
//     lease duration (plus a write). The new owner's informer then holds
//     the slot's ConfigMaps after one list of the slot's range.
//
// Identities must be unique among running replicas (a StatefulSet's pod
// names, say): a replica adopts a slot Lease that names it, as after a
// restart.
//
// It stops on SIGINT or SIGTERM, or after -run-for, releasing its slots and
// deleting its member Lease so that the others take over at once, and exits
// 0 after a clean shutdown. Without -kubeconfig it uses the in-cluster
// configuration.
package main
