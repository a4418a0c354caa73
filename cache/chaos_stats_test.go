package cache

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// chaosStats are the counts of one run, or of many.
type chaosStats struct {
	schedules, realTime, lowLevel, stoppedMidChaos int
	// steps counts the steps carried out by kind (and error); effects,
	// what they did where it can be counted; writes, the writes by kind.
	steps, effects, writes map[string]int
	// notifications is the number of handler calls checked; objects, the
	// number of objects compared with the server at the end (once for the
	// store, once per handler's view).
	notifications, objects int
	handlerPanics          int
}

func newChaosStats() *chaosStats {
	return &chaosStats{steps: map[string]int{}, effects: map[string]int{}, writes: map[string]int{}}
}

func (s *chaosStats) add(o *chaosStats) {
	s.schedules += o.schedules
	s.realTime += o.realTime
	s.lowLevel += o.lowLevel
	s.stoppedMidChaos += o.stoppedMidChaos
	for k, v := range o.steps {
		s.steps[k] += v
	}
	for k, v := range o.effects {
		s.effects[k] += v
	}
	for k, v := range o.writes {
		s.writes[k] += v
	}
	s.notifications += o.notifications
	s.objects += o.objects
	s.handlerPanics += o.handlerPanics
}

// summary describes the statistics of a pipeline's runs.
func (s *chaosStats) summary(seeds []uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d schedules (seeds %d..%d; %d in real time, %d low-level informers, %d stopped mid-chaos), "+
		"%d notifications checked, %d objects compared with the server, %d handler panics\n",
		s.schedules, seeds[0], seeds[len(seeds)-1], s.realTime, s.lowLevel, s.stoppedMidChaos,
		s.notifications, s.objects, s.handlerPanics)
	b.WriteString("  steps:")
	for _, k := range slices.Sorted(maps.Keys(s.steps)) {
		fmt.Fprintf(&b, " %s=%d;", k, s.steps[k])
	}
	b.WriteString("\n  effects:")
	for _, k := range slices.Sorted(maps.Keys(s.effects)) {
		fmt.Fprintf(&b, " %s=%d;", k, s.effects[k])
	}
	b.WriteString("\n  writes:")
	for _, k := range slices.Sorted(maps.Keys(s.writes)) {
		fmt.Fprintf(&b, " %s=%d;", k, s.writes[k])
	}
	return b.String()
}
