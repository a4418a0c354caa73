// Package apiserver runs a real control plane for the end-to-end tests:
// one etcd and one kube-apiserver on loopback, on free ports, with their
// data, certificates and logs in a temporary directory.
//
// A test binary starts one [Cluster] in its TestMain (see [Env.Run]) and
// each test works in a namespace of its own ([Cluster.CreateNamespace]).
// The cluster can stop and restart kube-apiserver alone
// ([Cluster.RestartAPIServer]) and compact etcd ([Cluster.CompactEtcd]), for
// tests of what clients do when the server goes away or forgets history.
//
// Processes run in process groups of their own, die with the test binary
// (PR_SET_PDEATHSIG) and are stopped with SIGTERM, then SIGKILL after a
// short grace. Their logs are kept in files; [Cluster.LogTails] returns the
// last lines of each, and the directory is kept when a test failed.
package apiserver
