// memberlist-host: N HashiCorp memberlist members (LAN defaults) over real UDP + TCP on
// 127.0.0.1 in one Go process, grown ten joins at a time through member 0 and a random older
// member, converged, settled, then measured over a window: process CPU (getrusage) per member per
// second, packets and bytes sent. The Go side of `pnpm bench udp-scale --memberlist`, hosting
// members the way packages/transport-udp/bench/cluster.ts hosts ours. One JSON object on stdout.
//
// Built offline against Debian's golang-github-hashicorp-memberlist-dev (GOPATH mode):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o memberlist-host .
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"log"
	"math/rand"
	"runtime"
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

func main() {
	n := flag.Int("members", 1000, "members hosted in this process")
	seconds := flag.Float64("seconds", 10, "seconds measured")
	settle := flag.Float64("settle", 30, "seconds between convergence and the window")
	timeout := flag.Float64("timeout", 180, "bound on growing and converging, seconds")
	joinPause := flag.Int("join-pause", 100, "pause after each batch of ten joins, ms")
	flag.Parse()

	var packets, bytes, dead int64
	quiet := log.New(ioutil.Discard, "", 0)
	res := result{Implementation: "hashicorp/memberlist (Debian golang-github-hashicorp-memberlist-dev)", GoVersion: runtime.Version(), Members: *n}
	list := make([]*memberlist.Memberlist, 0, *n)
	// Each member binds a free port (UDP and TCP on the same number, memberlist NetTransport with port 0).
	ports := make([]int, 0, *n)
	addr := func(i int) string { return fmt.Sprintf("127.0.0.1:%d", ports[i]) }
	defer func() {
		for _, m := range list {
			m.Shutdown()
		}
		out, _ := json.Marshal(res)
		fmt.Println(string(out))
	}()

	start := time.Now()
	growCPU := cpuMs()
	deadline := start.Add(time.Duration(*timeout * float64(time.Second)))
	for i := 0; i < *n; i++ {
		if time.Now().After(deadline) {
			res.Error = fmt.Sprintf("grew to %d of %d members in %.0f s", len(list), *n, *timeout)
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
			if _, err := m.Join([]string{addr(0), addr(rand.Intn(i))}); err != nil {
				res.JoinFailures++
			}
		}
		if i%10 == 9 {
			time.Sleep(time.Duration(*joinPause) * time.Millisecond)
		}
	}
	res.Grown = true
	for !converged(list) && time.Now().Before(deadline) {
		time.Sleep(time.Second)
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
