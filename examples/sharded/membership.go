package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/informer-go/informer/cache"
)

const (
	// LeaseLabel marks the Leases of the program; its value says whether
	// a Lease is a member Lease or a slot Lease.
	LeaseLabel  = "example.informer-go.dev/sharded"
	memberLease = "member"
	slotLease   = "slot"
)

// Membership keeps this replica's member Lease, acquires, renews and
// releases slot Leases as described in the package documentation, and
// tells onChange which slots the replica owns whenever that changes. Its
// state belongs to the goroutine running [Membership.Run].
type Membership struct {
	leases    coordinationclient.LeaseInterface
	namespace string
	informer  cache.SharedIndexInformer
	id        string
	slots     int
	duration  time.Duration
	clock     clock.Clock
	// onChange receives the owned slots, sorted; it returns once the
	// replica no longer works on the slots it does not list.
	onChange func(owned []int)
	// wake is signalled when a Lease changes.
	wake chan struct{}

	memberRenewed time.Time
	// held maps the slots whose Lease this replica holds to the time of
	// its last successful write of the Lease.
	held  map[int]time.Time
	owned []int
}

// NewMembership returns the membership of replica id among the replicas
// using the Leases of namespace. Nothing runs until Run.
func NewMembership(client coordinationclient.LeasesGetter, namespace, id string, slots int, duration time.Duration, onChange func(owned []int)) *Membership {
	leases := client.Leases(namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = LeaseLabel
			return leases.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = LeaseLabel
			return leases.Watch(ctx, opts)
		},
	}
	m := &Membership{
		leases:    leases,
		namespace: namespace,
		informer:  cache.NewSharedIndexInformer(lw, &coordinationv1.Lease{}, 0, cache.Indexers{}),
		id:        id,
		slots:     slots,
		duration:  duration,
		clock:     clock.RealClock{},
		onChange:  onChange,
		wake:      make(chan struct{}, 1),
		held:      map[int]time.Time{},
	}
	signal := func(any) {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	_, _ = m.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: signal, UpdateFunc: func(_, obj any) { signal(obj) }, DeleteFunc: signal,
	})
	return m
}

// Run takes part in the membership until ctx ends, then gives the slots
// up (onChange(nil), then the Leases freed) and deletes the member Lease.
func (m *Membership) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	done := make(chan struct{})
	go func() { // exits when ctx ends
		defer close(done)
		m.informer.RunWithContext(ctx)
	}()
	defer func() { <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), m.informer.HasSynced) {
		return fmt.Errorf("the Lease cache did not sync")
	}
	timer := m.clock.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			m.leave(logger)
			return nil
		case <-m.wake:
		case <-timer.C():
		}
		next := m.reconcile(ctx)
		timer.Stop()
		timer.Reset(next)
	}
}

// renewEvery is how often Leases are renewed; fence is how long after its
// last renewal a replica stops owning a slot.
func (m *Membership) renewEvery() time.Duration { return m.duration / 4 }
func (m *Membership) fence() time.Duration      { return m.duration * 3 / 4 }

// reconcile renews what is due, applies the handover rule to every slot,
// reports a change of the owned slots, and returns when to look again.
func (m *Membership) reconcile(ctx context.Context) time.Duration {
	logger := klog.FromContext(ctx)
	now := m.clock.Now()
	if now.Sub(m.memberRenewed) >= m.renewEvery() {
		if err := m.write(ctx, "sharded-member-"+m.id, memberLease, m.id, anyHolder); err != nil {
			logger.Info("Cannot renew the member Lease", "err", err)
		} else {
			m.memberRenewed = now
		}
	}
	members, slotLeases := m.view()
	live := LiveMembers(members, now)
	assigned := Assign(live, m.slots)
	mine := func(l *coordinationv1.Lease) bool { return holderOf(l) == m.id }
	free := func(l *coordinationv1.Lease) bool { return Free(l, m.id, now) }

	var release []int
	for j := range m.slots {
		renewed, holding := m.held[j]
		switch {
		case assigned[j] != m.id:
			// Another replica's slot: give it up if held, or if a Lease
			// left from an earlier run of this replica still names it.
			if holding || (slotLeases[j] != nil && mine(slotLeases[j]) && now.Before(expiry(slotLeases[j]))) {
				release = append(release, j)
			}
		case holding && now.Sub(renewed) < m.renewEvery():
			// Renewed recently enough.
		case holding:
			if err := m.write(ctx, slotName(j), slotLease, m.id, mine); err != nil {
				logger.Info("Cannot renew slot", "slot", j, "err", err)
				if slotLeases[j] != nil && !mine(slotLeases[j]) {
					delete(m.held, j) // taken over after expiring: long lost
				}
				continue
			}
			m.held[j] = now
		case free(slotLeases[j]):
			if err := m.write(ctx, slotName(j), slotLease, m.id, free); err != nil {
				logger.V(2).Info("Cannot acquire slot", "slot", j, "err", err)
				continue
			}
			m.held[j] = now
		}
	}
	// Stop owning before freeing: no reconcile of a released slot runs
	// once setOwned returned.
	m.setOwned(logger, now, release, len(live))
	for _, j := range release {
		if err := m.write(ctx, slotName(j), slotLease, "", mine); err != nil {
			logger.Info("Cannot release slot, it expires instead", "slot", j, "err", err)
		}
		delete(m.held, j)
	}
	return m.nextWake(now, members, slotLeases)
}

// setOwned recomputes the owned slots, leaving out those to be released and
// those not renewed within the fence, and reports a change.
func (m *Membership) setOwned(logger klog.Logger, now time.Time, release []int, members int) {
	var owned []int
	for j, renewed := range m.held {
		if !slices.Contains(release, j) && now.Sub(renewed) < m.fence() {
			owned = append(owned, j)
		}
	}
	slices.Sort(owned)
	if slices.Equal(owned, m.owned) {
		return
	}
	m.owned = owned
	m.onChange(owned)
	logger.Info("Owning slots", "slots", formatSlots(owned), "members", members)
}

// nextWake returns the time until the next renewal is due, or a Lease of
// another replica expires, or a held slot reaches its fence.
func (m *Membership) nextWake(now time.Time, members []*coordinationv1.Lease, slotLeases map[int]*coordinationv1.Lease) time.Duration {
	next := m.renewEvery()
	consider := func(at time.Time) {
		if d := at.Sub(now); d > 0 && d < next {
			next = d
		}
	}
	for _, l := range members {
		consider(expiry(l))
	}
	for _, l := range slotLeases {
		consider(expiry(l))
	}
	for _, renewed := range m.held {
		consider(renewed.Add(m.fence()))
	}
	return next
}

// leave stops owning, frees the held slots and deletes the member Lease,
// with a fresh context: the one of Run has ended.
func (m *Membership) leave(logger klog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), m.duration)
	defer cancel()
	m.onChange(nil)
	logger.Info("Owning slots", "slots", "", "members", 0)
	for j := range m.held {
		if err := m.write(ctx, slotName(j), slotLease, "", func(l *coordinationv1.Lease) bool { return holderOf(l) == m.id }); err != nil {
			logger.Info("Cannot release slot, it expires instead", "slot", j, "err", err)
		}
	}
	if err := m.leases.Delete(ctx, "sharded-member-"+m.id, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		logger.Info("Cannot delete the member Lease, it expires instead", "err", err)
	}
}

// view returns the member Leases and the slot Leases by slot, from the
// informer's cache (shared objects: read only).
func (m *Membership) view() ([]*coordinationv1.Lease, map[int]*coordinationv1.Lease) {
	var members []*coordinationv1.Lease
	slotLeases := map[int]*coordinationv1.Lease{}
	for _, obj := range m.informer.GetStore().List() {
		l := obj.(*coordinationv1.Lease)
		switch l.Labels[LeaseLabel] {
		case memberLease:
			members = append(members, l)
		case slotLease:
			var j int
			if _, err := fmt.Sscanf(l.Name, "sharded-slot-%d", &j); err == nil && j < m.slots {
				slotLeases[j] = l
			}
		}
	}
	return members, slotLeases
}

// anyHolder lets a write replace any holder (of this replica's own member
// Lease).
func anyHolder(*coordinationv1.Lease) bool { return true }

// write makes the Lease name held by holder ("" frees it) and renewed now,
// creating it if needed, provided allowed accepts the Lease as it is. The
// update carries the resourceVersion read, so it fails if another replica
// wrote the Lease since; then the Lease is read again and, if still
// allowed, written once more (the cache may simply have been behind this
// replica's own last write).
func (m *Membership) write(ctx context.Context, name, kind, holder string, allowed func(*coordinationv1.Lease) bool) error {
	now := metav1.NewMicroTime(m.clock.Now())
	obj, exists, err := m.informer.GetStore().GetByKey(m.namespace + "/" + name)
	if err != nil {
		return err
	}
	var lease *coordinationv1.Lease
	if exists {
		lease = obj.(*coordinationv1.Lease).DeepCopy()
	} else {
		lease = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LeaseLabel: kind}}}
		setHolder(lease, holder, now, m.duration)
		if _, err = m.leases.Create(ctx, lease, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			return err
		}
		if lease, err = m.leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return err
		}
	}
	for attempt := 0; ; attempt++ {
		if !allowed(lease) {
			return fmt.Errorf("lease %s is held by %q", name, holderOf(lease))
		}
		setHolder(lease, holder, now, m.duration)
		_, err := m.leases.Update(ctx, lease, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) || attempt > 0 {
			return err
		}
		if lease, err = m.leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return err
		}
	}
}

// setHolder sets the holder, renewal and duration of lease, counting a
// change of holder as a transition.
func setHolder(lease *coordinationv1.Lease, holder string, now metav1.MicroTime, duration time.Duration) {
	if lease.Spec.HolderIdentity == nil || holderOf(lease) != holder {
		lease.Spec.AcquireTime = &now
		lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
	}
	lease.Spec.HolderIdentity = ptr.To(holder)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(duration / time.Second))
	lease.Spec.RenewTime = &now
}

func slotName(j int) string { return fmt.Sprintf("sharded-slot-%02d", j) }

// LiveMembers returns the sorted holders of the member Leases that have
// not expired at now.
func LiveMembers(members []*coordinationv1.Lease, now time.Time) []string {
	var live []string
	for _, l := range members {
		if h := holderOf(l); h != "" && now.Before(expiry(l)) {
			live = append(live, h)
		}
	}
	slices.Sort(live)
	return slices.Compact(live)
}

// Assign returns the member each of slots slots is assigned to: member k
// of n gets the slots from k·slots/n up to (k+1)·slots/n. With no member,
// every slot is assigned to "".
func Assign(members []string, slots int) []string {
	assigned := make([]string, slots)
	for j := range assigned {
		if len(members) > 0 {
			assigned[j] = members[j*len(members)/slots]
		}
	}
	return assigned
}

// Free reports whether id may acquire the slot Lease at now: there is
// none yet, it is released, it names id already, or it expired.
func Free(lease *coordinationv1.Lease, id string, now time.Time) bool {
	if lease == nil {
		return true
	}
	h := holderOf(lease)
	return h == "" || h == id || !now.Before(expiry(lease))
}

func holderOf(l *coordinationv1.Lease) string { return ptr.Deref(l.Spec.HolderIdentity, "") }

// expiry is when the Lease expires: its renewal plus its duration; a Lease
// never renewed has expired.
func expiry(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Add(time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second)
}

// formatSlots writes slots as "0,1,2".
func formatSlots(slots []int) string {
	s := ""
	for i, j := range slots {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(j)
	}
	return s
}
