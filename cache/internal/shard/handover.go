package shard

import "errors"

// Plan is what changes when a reader moves from one shard to another: the
// hash ranges of Key it leaves and those it enters. Objects in both shards
// are in neither.
type Plan struct {
	Key               string
	Leaving, Entering Ranges
}

// ErrKeyChanged is why a handover between shards of different fields cannot
// be planned: it cannot tell which objects are in both.
var ErrKeyChanged = errors.New("the shards hash different fields")

// PlanHandover compares the shards; everything counts as the whole hash
// space of the other shard's field. Between two sets that both select
// everything nothing changes.
func PlanHandover(from, to Set) (Plan, error) {
	switch {
	case from.Everything() && to.Everything():
		return Plan{}, nil
	case from.Everything():
		from = Set{Key: to.Key, Ranges: Ranges{FullRange}}
	case to.Everything():
		to = Set{Key: from.Key, Ranges: Ranges{FullRange}}
	}
	if from.Key != to.Key {
		return Plan{}, ErrKeyChanged
	}
	return Plan{
		Key:      from.Key,
		Leaving:  from.Ranges.Minus(to.Ranges),
		Entering: to.Ranges.Minus(from.Ranges),
	}, nil
}

// LeavingSet is the shard of the objects the reader leaves.
func (p Plan) LeavingSet() Set {
	return Set{Key: p.Key, Ranges: p.Leaving}
}

// EnteringSet is the shard of the objects the reader enters.
func (p Plan) EnteringSet() Set {
	return Set{Key: p.Key, Ranges: p.Entering}
}
