package compare

import (
	"bufio"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

// Machine describes the machine a run ran on and its load, from /proc on
// Linux; what cannot be read is left empty.
type Machine struct {
	CPU        string
	CPUs       int
	GOMAXPROCS int
	MemoryGiB  float64
	Go         string
	// LoadStart and LoadEnd are the 1, 5 and 15-minute load averages at
	// the start and the end of the run.
	LoadStart, LoadEnd string
	// OtherCPUs is the average number of CPUs that other processes kept
	// busy during the run, or -1 when unknown.
	OtherCPUs float64
}

// machineReading is the state at the start of a run.
type machineReading struct {
	m      Machine
	busy   time.Duration // all CPUs' busy time, from /proc/stat
	usage  benchkit.Usage
	began  time.Time
	busyOK bool
}

func startMachineReading() *machineReading {
	r := &machineReading{
		m: Machine{
			CPU:        cpuModel(),
			CPUs:       goruntime.NumCPU(),
			GOMAXPROCS: goruntime.GOMAXPROCS(0),
			MemoryGiB:  memoryGiB(),
			Go:         fmt.Sprintf("%s %s/%s", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH),
			LoadStart:  loadAverage(),
			OtherCPUs:  -1,
		},
		usage: benchkit.ReadUsage(),
		began: time.Now(),
	}
	r.busy, r.busyOK = systemBusy()
	return r
}

// finish completes the description with the load during the run.
func (r *machineReading) finish() Machine {
	m := r.m
	m.LoadEnd = loadAverage()
	own := r.usage.Spent().CPU
	if busy, ok := systemBusy(); ok && r.busyOK {
		m.OtherCPUs = max(0, float64(busy-r.busy-own)/float64(time.Since(r.began)))
	}
	return m
}

// String describes the machine in one line.
func (m Machine) String() string {
	var b strings.Builder
	if m.CPU != "" {
		b.WriteString(m.CPU + ", ")
	}
	fmt.Fprintf(&b, "%d CPUs (GOMAXPROCS %d)", m.CPUs, m.GOMAXPROCS)
	if m.MemoryGiB > 0 {
		fmt.Fprintf(&b, ", %.0f GiB RAM", m.MemoryGiB)
	}
	b.WriteString(", " + m.Go)
	return b.String()
}

// Load describes the machine's load during the run in one line.
func (m Machine) Load() string {
	var parts []string
	if m.LoadStart != "" {
		parts = append(parts, fmt.Sprintf("load average %s at the start, %s at the end", m.LoadStart, m.LoadEnd))
	}
	if others := m.otherLoad(); others != "" {
		parts = append(parts, others)
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, "; ")
}

// ShortLoad is the part of Load that says the most: what other processes
// used, or else the load averages.
func (m Machine) ShortLoad() string {
	if others := m.otherLoad(); others != "" {
		return others
	}
	return m.Load()
}

func (m Machine) otherLoad() string {
	if m.OtherCPUs < 0 {
		return ""
	}
	return fmt.Sprintf("other processes kept %.2f of %d CPUs busy on average", m.OtherCPUs, m.CPUs)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memoryGiB() float64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kib, _ := strconv.ParseFloat(f[1], 64)
			return kib / (1 << 20)
		}
	}
	return 0
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], "/")
}

// clockTicks is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// systemBusy returns the time all CPUs spent busy (user, nice, system, irq
// and softirq) since boot.
func systemBusy() (time.Duration, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, false
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7} { // user nice system (idle iowait) irq softirq
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks, true
}
