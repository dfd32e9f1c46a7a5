package bbr

import (
	"container/heap"
	"math/rand/v2"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// A discrete-event simulation of one flow through a bottleneck, driving a
// congestion.Controller the way quic-go does: OnPacketSent for each packet,
// OnAck with the packets an ACK frame newly acknowledges and those the
// sender's RFC 9002 loss detection declares lost, OnAppLimited when the
// application has nothing to send, and pacing through HasPacingBudget and
// TimeUntilSend. Time is simulated; nothing sleeps, and a seeded RNG makes
// every run the same.

// path is the simulated network.
type path struct {
	rate  float64       // bottleneck rate, bytes per second
	delay time.Duration // one-way propagation delay, each way
	// jitter spreads each direction's delay uniformly over
	// [delay-jitter/2, delay+jitter/2], packets keeping their order, as
	// the lab's emulator does.
	jitter time.Duration
	// late is the share of data packets held back by lateBy beyond their
	// jittered delay, overtaken by the packets behind them (reordering).
	late   float64
	lateBy time.Duration
	queue  int64   // bottleneck buffer, bytes; 0: one BDP
	loss   float64 // random loss probability per packet
	// burstLen, above 1, makes the loss come in bursts of this mean length
	// (a Gilbert-Elliott chain with the same mean loss, as the lab's
	// emulator draws wifi-bursty's).
	burstLen   float64
	ecnAbove   int64         // CE-mark packets queued above this many bytes; 0: no ECN
	ackEvery   int           // the receiver acknowledges every ackEvery packets
	maxAckWait time.Duration // or after this long
}

// mbit converts megabits per second to bytes per second.
func mbit(m float64) float64 { return m * 1e6 / 8 }

const simMSS = 1200

// simEpoch is when simulations start: any instant will do.
const simEpoch = congestion.Time(time.Second)

func (p path) minRTT() time.Duration {
	return 2*p.delay + time.Duration(float64(simMSS)/p.rate*float64(time.Second))
}

// bdp is the path's bandwidth-delay product in bytes.
func (p path) bdp() int64 { return int64(p.rate * p.minRTT().Seconds()) }

type eventKind uint8

const (
	evDequeue   eventKind = iota // a packet leaves the bottleneck queue
	evReceive                    // a packet reaches the receiver
	evAckTimer                   // the receiver's delayed-ACK timer
	evAck                        // an ACK reaches the sender
	evWake                       // the sender's pacing timer
	evLossTimer                  // the sender's loss-detection timer
	evCall                       // a scheduled test action
)

type event struct {
	flow *sim
	at   congestion.Time
	seq  int64
	kind eventKind
	num  int64
	size int64
	ce   bool
	gen  int64
	acks []int64
	ces  int64
	call func()
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type simPacket struct {
	num  int64
	size int64
	sent congestion.Time
}

// simStats are a run's figures.
type simStats struct {
	sent, delivered             int64 // bytes
	packetsSent                 int64
	randomDrops, overflowDrops  int64 // packets
	declaredLost                int64 // packets the sender declared lost
	spuriousLosses              int64 // of them, acknowledged after all
	ceMarks                     int64
	queueDelaySum               time.Duration
	queuedPackets               int64
	maxQueue                    int64
	wakeWithoutBudget, timeouts int64
}

// network is the clock, the event queue and the bottleneck that one or
// more flows share.
type network struct {
	path  path
	rng   *rand.Rand
	now   congestion.Time
	seq   int64
	q     eventQueue
	flows []*sim

	queued     int64 // bytes in the bottleneck queue
	inBurst    bool  // the loss chain is in its bad state
	linkFreeAt congestion.Time
	// lastArrival is the latest arrival scheduled in each direction.
	lastArrival [2]congestion.Time
}

const (
	forward = iota // data, sender to receiver
	reverse        // ACKs
)

// arrival is when something leaving now on direction dir arrives.
func (n *network) arrival(dir int, leave congestion.Time) congestion.Time {
	at := leave.Add(n.path.delay)
	if n.path.jitter > 0 {
		at = at.Add(time.Duration((n.rng.Float64() - 0.5) * float64(n.path.jitter)))
	}
	at = max(at, n.lastArrival[dir])
	n.lastArrival[dir] = at
	return at
}

// sim is one flow: its application, sender and receiver.
type sim struct {
	net  *network
	path path
	cc   congestion.Controller

	// The application: unlimited, or pending bytes to send.
	unlimited bool
	pending   int64

	// Sender.
	nextNum      int64
	inflight     int64
	outstanding  []*simPacket // ascending packet numbers
	byNum        map[int64]*simPacket
	largestAcked int64
	srtt, rttvar time.Duration
	latestRTT    time.Duration
	minRTT       time.Duration
	lastSend     congestion.Time
	wakeAt       congestion.Time
	lossGen      int64
	ptoCount     int
	// declaredLost holds the send times of packets declared lost, to find
	// spurious losses when they are acknowledged after all; reported to
	// the controller unless hideSpurious (upstream quic-go reports none).
	declaredLost map[int64]congestion.Time
	hideSpurious bool

	// Receiver.
	unacked  []int64
	ceUnsent int64
	ackGen   int64

	stats simStats
	// afterAck, when set, runs after each OnAck.
	afterAck func()
}

func newSim(p path, cc congestion.Controller, seed uint64) *sim {
	return newNetwork(p, seed).addFlow(cc)
}

func newNetwork(p path, seed uint64) *network {
	if p.queue == 0 {
		p.queue = p.bdp()
	}
	if p.ackEvery == 0 {
		p.ackEvery = 2
	}
	if p.maxAckWait == 0 {
		p.maxAckWait = 25 * time.Millisecond
	}
	return &network{path: p, rng: rand.New(rand.NewPCG(seed, 1)), now: simEpoch}
}

// setRate changes the bottleneck's rate for every flow from now on.
func (n *network) setRate(rate float64) {
	n.path.rate = rate
	for _, s := range n.flows {
		s.path.rate = rate
	}
}

// addFlow starts a flow controlled by cc through the network.
func (n *network) addFlow(cc congestion.Controller) *sim {
	s := &sim{
		net:          n,
		path:         n.path,
		cc:           cc,
		byNum:        make(map[int64]*simPacket),
		declaredLost: make(map[int64]congestion.Time),
		largestAcked: -1,
	}
	n.flows = append(n.flows, s)
	return s
}

// addBBR starts a flow controlled by BBR seeded by seed.
func (n *network) addBBR(seed uint64) (*sim, *BBR) {
	s := n.addFlow(nil)
	b := newBBR(congestion.Conn{InitialMaxDatagramSize: simMSS, Now: func() congestion.Time { return n.now }}, WithSeed(seed))
	s.cc = b
	return s, b
}

// newSimBBR is a simulation of path with a BBR controller seeded by seed.
func newSimBBR(p path, seed uint64) (*sim, *BBR) {
	return newNetwork(p, seed).addBBR(seed)
}

// newBulkBBR is newSimBBR with an application that always has data.
func newBulkBBR(p path, seed uint64) (*sim, *BBR) {
	s, b := newSimBBR(p, seed)
	s.unlimited = true
	return s, b
}

func (s *sim) schedule(e *event) {
	e.flow = s
	s.net.schedule(e)
}

func (n *network) schedule(e *event) {
	n.seq++
	e.seq = n.seq
	heap.Push(&n.q, e)
}

// at runs f at simulated time t after the start.
func (s *sim) at(d time.Duration, f func()) {
	s.schedule(&event{at: s.net.now.Add(d), kind: evCall, call: f})
}

// send gives the application n more bytes to send.
func (s *sim) send(n int64) {
	s.pending += n
	s.trySend()
}

// run advances the simulation by d.
func (s *sim) run(d time.Duration) { s.net.run(d) }

// runUntil advances the simulation until done holds after an event, or by
// limit; it reports whether done held.
func (s *sim) runUntil(done func() bool, limit time.Duration) bool {
	return s.net.runUntil(done, limit)
}

func (n *network) run(d time.Duration) {
	n.runUntil(func() bool { return false }, d)
}

func (n *network) runUntil(done func() bool, limit time.Duration) bool {
	end := n.now.Add(limit)
	for _, s := range n.flows {
		if s.unlimited {
			s.trySend()
		}
	}
	for n.q.Len() > 0 && n.q[0].at <= end {
		e := heap.Pop(&n.q).(*event)
		n.now = e.at
		e.flow.handle(e)
		if done() {
			return true
		}
	}
	n.now = end
	return false
}

// elapsed is the simulated time since the start.
func (s *sim) elapsed() time.Duration { return s.net.now.Sub(simEpoch) }

func (s *sim) handle(e *event) {
	switch e.kind {
	case evDequeue:
		s.net.queued -= e.size
	case evReceive:
		s.receive(e)
	case evAckTimer:
		if e.gen == s.ackGen && len(s.unacked) > 0 {
			s.sendAck()
		}
	case evAck:
		s.onAck(e.acks, e.ces)
	case evWake:
		if e.at == s.wakeAt {
			s.wakeAt = 0
			s.trySend()
		}
	case evLossTimer:
		if e.gen == s.lossGen {
			s.onLossTimer()
		}
	case evCall:
		e.call()
	}
}

func (s *sim) hasData() bool { return s.unlimited || s.pending > 0 }

// trySend sends while the controller allows, as quic-go's send loop does.
func (s *sim) trySend() {
	for {
		if !s.hasData() {
			if s.cc.CanSend(s.inflight) && s.cc.HasPacingBudget(s.net.now) {
				s.cc.OnAppLimited(s.net.now, s.inflight)
			}
			return
		}
		if !s.cc.CanSend(s.inflight) {
			return // an ACK will open the window
		}
		if !s.cc.HasPacingBudget(s.net.now) {
			next := s.cc.TimeUntilSend(s.inflight)
			if next <= s.net.now {
				// The pacer said no but gives no later time.
				s.stats.wakeWithoutBudget++
				next = s.net.now.Add(time.Microsecond)
			}
			if s.wakeAt == 0 || next < s.wakeAt {
				s.wakeAt = next
				s.schedule(&event{at: next, kind: evWake})
			}
			return
		}
		s.sendPacket()
	}
}

func (s *sim) sendPacket() {
	size := int64(simMSS)
	if !s.unlimited {
		s.pending = max(s.pending-size, 0)
	}
	p := &simPacket{num: s.nextNum, size: size, sent: s.net.now}
	s.nextNum++
	s.outstanding = append(s.outstanding, p)
	s.byNum[p.num] = p
	s.inflight += size
	s.lastSend = s.net.now
	s.stats.sent += size
	s.stats.packetsSent++
	s.cc.OnPacketSent(s.net.now, congestion.Packet{Number: p.num, Bytes: size, SentTime: s.net.now}, s.inflight, true)
	s.enqueue(p)
	s.armLossTimer()
}

// enqueue puts a packet into the bottleneck: random loss first, then
// tail drop when the buffer is full.
func (s *sim) enqueue(p *simPacket) {
	n := s.net
	if n.lost() {
		s.stats.randomDrops++
		return
	}
	if n.queued+p.size > s.path.queue {
		s.stats.overflowDrops++
		return
	}
	ce := s.path.ecnAbove > 0 && n.queued > s.path.ecnAbove
	if ce {
		s.stats.ceMarks++
	}
	n.queued += p.size
	s.stats.maxQueue = max(s.stats.maxQueue, n.queued)
	service := time.Duration(float64(p.size) / s.path.rate * float64(time.Second))
	start := max(n.now, n.linkFreeAt)
	s.stats.queueDelaySum += start.Sub(n.now)
	s.stats.queuedPackets++
	depart := start.Add(service)
	n.linkFreeAt = depart
	s.schedule(&event{at: depart, kind: evDequeue, size: p.size})
	at := n.arrival(forward, depart)
	if s.path.late > 0 && n.rng.Float64() < s.path.late {
		at = at.Add(s.path.lateBy)
	}
	s.schedule(&event{at: at, kind: evReceive, num: p.num, size: p.size, ce: ce})
}

// lost draws a packet's random loss, alone or in bursts (path.burstLen).
func (n *network) lost() bool {
	p := n.path
	if p.loss <= 0 {
		return false
	}
	if p.burstLen <= 1 {
		return n.rng.Float64() < p.loss
	}
	leave := 1 / p.burstLen
	if n.inBurst {
		n.inBurst = n.rng.Float64() >= leave
	} else {
		n.inBurst = n.rng.Float64() < p.loss*leave/(1-p.loss)
	}
	return n.inBurst
}

func (s *sim) receive(e *event) {
	s.unacked = append(s.unacked, e.num)
	if e.ce {
		s.ceUnsent++
	}
	if len(s.unacked) >= s.path.ackEvery {
		s.sendAck()
		return
	}
	if len(s.unacked) == 1 {
		s.ackGen++
		s.schedule(&event{at: s.net.now.Add(s.path.maxAckWait), kind: evAckTimer, gen: s.ackGen})
	}
}

func (s *sim) sendAck() {
	s.schedule(&event{at: s.net.arrival(reverse, s.net.now), kind: evAck, acks: s.unacked, ces: s.ceUnsent})
	s.unacked, s.ceUnsent = nil, 0
	s.ackGen++
}

// onAck processes an ACK frame: RTT, newly acknowledged packets, RFC 9002
// loss detection (3 packets or 9/8 RTT), then the controller.
func (s *sim) onAck(nums []int64, ces int64) {
	ev := congestion.AckEvent{Now: s.net.now, PriorInFlight: s.inflight, ECNCE: ces}
	var largestNew *simPacket
	var spurious []int64
	for _, n := range nums {
		p, ok := s.byNum[n]
		if !ok {
			if _, lost := s.declaredLost[n]; lost {
				spurious = append(spurious, n)
			}
			continue
		}
		delete(s.byNum, n)
		s.inflight -= p.size
		s.stats.delivered += p.size
		ev.Acked = append(ev.Acked, congestion.Packet{Number: p.num, Bytes: p.size, SentTime: p.sent})
		if largestNew == nil || p.num > largestNew.num {
			largestNew = p
		}
	}
	if largestNew != nil && largestNew.num > s.largestAcked {
		s.largestAcked = largestNew.num
		s.updateRTT(s.net.now.Sub(largestNew.sent))
	}
	if len(ev.Acked) > 0 {
		s.ptoCount = 0
	}
	ev.Lost = s.detectLosses()
	ev.BytesInFlight = s.inflight
	ev.RTT = congestion.RTTStats{Latest: s.latestRTT, Smoothed: s.srtt, Min: s.minRTT}
	s.cc.OnAck(ev)
	s.reportSpurious(spurious)
	if s.afterAck != nil {
		s.afterAck()
	}
	s.armLossTimer()
	s.trySend()
}

// reportSpurious tells the controller, after the ACK that revealed them,
// of packets declared lost that the ACK acknowledged, as lastmile's
// quic-go patch does.
func (s *sim) reportSpurious(nums []int64) {
	for _, n := range nums {
		sent := s.declaredLost[n]
		delete(s.declaredLost, n)
		s.stats.spuriousLosses++
		if c, ok := s.cc.(congestion.SpuriousLossController); ok && !s.hideSpurious {
			c.OnSpuriousLoss(s.net.now, n, sent)
		}
	}
}

func (s *sim) updateRTT(rtt time.Duration) {
	s.latestRTT = rtt
	if s.minRTT == 0 || rtt < s.minRTT {
		s.minRTT = rtt
	}
	if s.srtt == 0 {
		s.srtt, s.rttvar = rtt, rtt/2
		return
	}
	s.rttvar = (3*s.rttvar + (s.srtt - rtt).Abs()) / 4
	s.srtt = (7*s.srtt + rtt) / 8
}

func (s *sim) lossDelay() time.Duration {
	return max(s.srtt, s.latestRTT) * 9 / 8
}

// detectLosses declares lost the outstanding packets 3 below the largest
// acknowledged, or sent 9/8 RTT before it was acknowledged.
func (s *sim) detectLosses() []congestion.Packet {
	var lost []congestion.Packet
	kept := s.outstanding[:0]
	for _, p := range s.outstanding {
		if _, ok := s.byNum[p.num]; !ok {
			continue // acknowledged
		}
		if p.num < s.largestAcked && (s.largestAcked-p.num >= 3 || s.net.now.Sub(p.sent) >= s.lossDelay()) {
			delete(s.byNum, p.num)
			s.declaredLost[p.num] = p.sent
			s.inflight -= p.size
			s.stats.declaredLost++
			if !s.unlimited {
				s.pending += p.size // to be sent again
			}
			lost = append(lost, congestion.Packet{Number: p.num, Bytes: p.size, SentTime: p.sent})
			continue
		}
		kept = append(kept, p)
	}
	s.outstanding = kept
	return lost
}

// armLossTimer sets the loss-detection timer: the time threshold of the
// oldest packet below the largest acknowledged, else the probe timeout.
func (s *sim) armLossTimer() {
	s.lossGen++
	for _, p := range s.outstanding {
		if _, ok := s.byNum[p.num]; !ok {
			continue
		}
		if p.num < s.largestAcked {
			s.schedule(&event{at: p.sent.Add(s.lossDelay()), kind: evLossTimer, gen: s.lossGen})
			return
		}
		break
	}
	if s.inflight == 0 {
		return
	}
	srtt := s.srtt
	if srtt == 0 {
		srtt = 333 * time.Millisecond // RFC 9002's initial RTT
	}
	pto := (srtt + max(4*s.rttvar, time.Millisecond) + s.path.maxAckWait) << s.ptoCount
	s.schedule(&event{at: s.lastSend.Add(pto), kind: evLossTimer, gen: s.lossGen})
}

func (s *sim) onLossTimer() {
	if lost := s.detectLosses(); len(lost) > 0 {
		s.cc.OnAck(congestion.AckEvent{Now: s.net.now, PriorInFlight: s.inflight + sumBytes(lost), BytesInFlight: s.inflight, Lost: lost,
			RTT: congestion.RTTStats{Latest: s.latestRTT, Smoothed: s.srtt, Min: s.minRTT}})
		s.armLossTimer()
		s.trySend()
		return
	}
	// Probe timeout: like QUIC, send two probes whatever cwnd says, with
	// new data or else a retransmission of what is outstanding.
	s.stats.timeouts++
	s.ptoCount = min(s.ptoCount+1, 10)
	s.cc.OnRetransmissionTimeout(true)
	s.sendPacket()
	s.sendPacket()
	s.armLossTimer()
}

func sumBytes(ps []congestion.Packet) int64 {
	var n int64
	for _, p := range ps {
		n += p.Bytes
	}
	return n
}

// transition is a change of BBR state seen after an ACK.
type transition struct {
	at    time.Duration
	state state
	info  congestion.Info
}

// traceStates records b's state changes into the returned slice, keeping
// any afterAck hook already set.
func traceStates(s *sim, b *BBR) *[]transition {
	trace := &[]transition{{at: s.elapsed(), state: b.state, info: b.Info()}}
	next := s.afterAck
	s.afterAck = func() {
		if last := (*trace)[len(*trace)-1]; last.state != b.state {
			*trace = append(*trace, transition{at: s.elapsed(), state: b.state, info: b.Info()})
		}
		if next != nil {
			next()
		}
	}
	return trace
}

// goodput is the share of the link the flow's acknowledged bytes filled
// between two snapshots.
func goodput(p path, before, after simStats, d time.Duration) float64 {
	return float64(after.delivered-before.delivered) / (p.rate * d.Seconds())
}

// meanQueueDelay is the mean time packets waited in the bottleneck queue.
func (st simStats) meanQueueDelay() time.Duration {
	if st.queuedPackets == 0 {
		return 0
	}
	return st.queueDelaySum / time.Duration(st.queuedPackets)
}
