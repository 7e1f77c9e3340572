// memberlist-host: N HashiCorp memberlist members (LAN defaults) over real UDP + TCP on
// 127.0.0.1 in one Go process, grown ten joins at a time through member 0 and a random older
// member (with -paced, each batch also waits until every member counts every member: memberlist
// has no preload, and each newcomer is re-gossiped by every member, memberlist aliveNode),
// converged, settled, then measured over a window: process CPU (getrusage) per member per second,
// packets and bytes sent, RSS. The Go side of `pnpm bench udp-scale --memberlist`, hosting members
// the way packages/transport-udp/bench/cluster.ts hosts ours. One JSON object on stdout, progress
// on stderr.
//
// Built offline against Debian's golang-github-hashicorp-memberlist-dev (GOPATH mode):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o memberlist-host .
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"log"
	"math/rand"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/memberlist"
)

// countingTransport counts the datagrams and bytes memberlist sends (memberlist's own metrics go
// through a global sink with a lock; counting here adds two atomic adds per packet).
type countingTransport struct {
	*memberlist.NetTransport
	packets *int64
	bytes   *int64
}

func (t *countingTransport) count(b []byte) {
	atomic.AddInt64(t.packets, 1)
	atomic.AddInt64(t.bytes, int64(len(b)))
}

func (t *countingTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	t.count(b)
	return t.NetTransport.WriteTo(b, addr)
}

// WriteToAddress is what memberlist calls on a NodeAwareTransport (NetTransport is one).
func (t *countingTransport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	t.count(b)
	return t.NetTransport.WriteToAddress(b, a)
}

// deaths counts NotifyLeave: memberlist calls it for a member declared dead (or that left).
type deaths struct{ count *int64 }

func (d deaths) NotifyJoin(*memberlist.Node)   {}
func (d deaths) NotifyUpdate(*memberlist.Node) {}
func (d deaths) NotifyLeave(*memberlist.Node)  { atomic.AddInt64(d.count, 1) }

type window struct {
	Seconds              float64 `json:"seconds"`
	CPUMs                float64 `json:"cpuMs"`
	CPUShare             float64 `json:"cpuShare"`
	CPUMsPerMemberSecond float64 `json:"cpuMsPerMemberSecond"`
	PacketsSent          int64   `json:"packetsSent"`
	PacketsPerSecond     float64 `json:"packetsPerSecond"`
	BytesPerPacket       float64 `json:"bytesPerPacket"`
	Deaths               int64   `json:"deaths"`
	RSSBytes             int64   `json:"rssBytes"`
}

type result struct {
	Implementation string  `json:"implementation"`
	GoVersion      string  `json:"goVersion"`
	Members        int     `json:"members"`
	Grown          bool    `json:"grown"`
	Converged      bool    `json:"converged"`
	ConvergeMs     float64 `json:"convergeMs"`
	JoinFailures   int     `json:"joinFailures"`
	GrowingCPU     float64 `json:"growingCpuShare"`
	DeathsBefore   int64   `json:"deathsBefore"`
	Formation      string  `json:"formation"`
	Window         *window `json:"window"`
	Error          string  `json:"error,omitempty"`
}

func cpuMs() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	return ms(usage.Utime) + ms(usage.Stime)
}

// rssBytes: the process's resident set (VmRSS), as Node's process.memoryUsage.rss() reports ours.
func rssBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// progress: a line on stderr (stdout carries only the result).
func progress(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "memberlist-host: "+format+"\n", args...)
}

func main() {
	n := flag.Int("members", 1000, "members hosted in this process")
	seconds := flag.Float64("seconds", 10, "seconds measured")
	settle := flag.Float64("settle", 30, "seconds between convergence and the window")
	timeout := flag.Float64("timeout", 180, "bound on growing and converging, seconds")
	joinPause := flag.Int("join-pause", 100, "pause after each batch of ten joins, ms")
	paced := flag.Bool("paced", false, "after each batch of ten joins, also wait until every member counts every member (memberlist has no preload: the pace it sustains)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}

	var packets, bytes, dead int64
	quiet := log.New(ioutil.Discard, "", 0)
	res := result{Implementation: "hashicorp/memberlist (Debian golang-github-hashicorp-memberlist-dev)", GoVersion: runtime.Version(), Members: *n, Formation: "joins"}
	if *paced {
		res.Formation = "paced joins"
	}
	list := make([]*memberlist.Memberlist, 0, *n)
	// Each member binds a free port (UDP and TCP on the same number, memberlist NetTransport with port 0).
	ports := make([]int, 0, *n)
	addr := func(i int) string { return fmt.Sprintf("127.0.0.1:%d", ports[i]) }
	// The result is printed and the process exits without shutting each member down: memberlist
	// Shutdown took minutes for 1,000 members, and exiting closes every socket anyway.
	defer func() {
		pprof.StopCPUProfile()
		out, _ := json.Marshal(res)
		fmt.Println(string(out))
		os.Exit(0)
	}()

	start := time.Now()
	growCPU := cpuMs()
	deadline := start.Add(time.Duration(*timeout * float64(time.Second)))
	nextProgress := start.Add(10 * time.Second)
	var slowestJoin time.Duration
	for i := 0; i < *n; i++ {
		if time.Now().After(nextProgress) {
			progress("%d of %d members after %.0f s, %.0f s of CPU, slowest join since the last line %.0f ms, %d dead events so far", len(list), *n, time.Since(start).Seconds(), (cpuMs()-growCPU)/1000, slowestJoin.Seconds()*1000, atomic.LoadInt64(&dead))
			nextProgress = time.Now().Add(10 * time.Second)
			slowestJoin = 0
		}
		if time.Now().After(deadline) {
			// Dead events while growing tell a collapse from a slow growth.
			res.DeathsBefore = atomic.LoadInt64(&dead)
			res.Error = fmt.Sprintf("grew to %d of %d members in %.0f s, %d dead events meanwhile", len(list), *n, *timeout, res.DeathsBefore)
			return
		}
		transport, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{"127.0.0.1"}, BindPort: 0, Logger: quiet})
		if err != nil {
			res.Error = fmt.Sprintf("member %d cannot bind: %v", i, err)
			return
		}
		ports = append(ports, transport.GetAutoBindPort())
		config := memberlist.DefaultLANConfig()
		config.Name = fmt.Sprintf("m%d", i)
		config.BindAddr = "127.0.0.1"
		config.BindPort = ports[i]
		config.AdvertisePort = ports[i]
		config.Logger = quiet
		config.Transport = &countingTransport{NetTransport: transport, packets: &packets, bytes: &bytes}
		config.Events = deaths{count: &dead}
		m, err := memberlist.Create(config)
		if err != nil {
			res.Error = fmt.Sprintf("member %d: %v", i, err)
			return
		}
		list = append(list, m)
		if i > 0 {
			joinStart := time.Now()
			if _, err := m.Join([]string{addr(0), addr(rand.Intn(i))}); err != nil {
				res.JoinFailures++
			}
			if took := time.Since(joinStart); took > slowestJoin {
				slowestJoin = took
			}
		}
		if i%10 == 9 || i == *n-1 {
			time.Sleep(time.Duration(*joinPause) * time.Millisecond)
			for *paced && !converged(list) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	res.Grown = true
	for !converged(list) && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		if time.Now().After(nextProgress) {
			progress("%d members, converging after %.0f s, %.0f s of CPU", len(list), time.Since(start).Seconds(), (cpuMs()-growCPU)/1000)
			nextProgress = time.Now().Add(10 * time.Second)
		}
	}
	res.Converged = converged(list)
	res.ConvergeMs = float64(time.Since(start).Milliseconds())
	res.GrowingCPU = (cpuMs() - growCPU) / res.ConvergeMs
	time.Sleep(time.Duration(*settle * float64(time.Second)))

	res.DeathsBefore = atomic.LoadInt64(&dead)
	packetsBefore, bytesBefore, cpuBefore := atomic.LoadInt64(&packets), atomic.LoadInt64(&bytes), cpuMs()
	windowStart := time.Now()
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	elapsed := time.Since(windowStart).Seconds()
	w := window{Seconds: elapsed}
	w.CPUMs = cpuMs() - cpuBefore
	w.CPUShare = w.CPUMs / 1000 / elapsed
	w.CPUMsPerMemberSecond = w.CPUMs / float64(len(list)) / elapsed
	w.PacketsSent = atomic.LoadInt64(&packets) - packetsBefore
	w.PacketsPerSecond = float64(w.PacketsSent) / elapsed
	if w.PacketsSent > 0 {
		w.BytesPerPacket = float64(atomic.LoadInt64(&bytes)-bytesBefore) / float64(w.PacketsSent)
	}
	w.Deaths = atomic.LoadInt64(&dead) - res.DeathsBefore
	w.RSSBytes = rssBytes()
	res.Window = &w
}

// converged: every member sees every member alive (memberlist NumMembers counts the non-dead).
func converged(list []*memberlist.Memberlist) bool {
	for _, m := range list {
		if m.NumMembers() != len(list) {
			return false
		}
	}
	return true
}
