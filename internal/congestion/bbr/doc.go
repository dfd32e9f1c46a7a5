// Package bbr is lastmile's BBRv3 congestion controller for QUIC, written
// from the IETF specification draft-ietf-ccwg-bbr ("BBR Congestion
// Control", the congestion control working group's draft of BBR version
// 3). Section numbers in comments (§) are those of the working group's
// editor's copy after draft -04
// (github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr, commit 4ce5e87); names
// follow the draft's (BBR.max_bw is maxBw, C.inflight is inflight).
//
// Where QUIC or lastmile's controller interface differ from the draft's
// TCP-centred pseudocode, the comments say so: the per-packet delivery
// state lives here rather than in the transport, the ECN response (which
// the draft leaves open) follows Linux's BBRv3, and a probe timeout does
// not collapse the window (RFC 9002 §6.2: a PTO is not a loss signal).
//
// One file per concern: rate.go samples delivery rates, filter.go holds
// the windowed filters, round.go counts round trips, startup.go,
// probe_bw.go and probe_rtt.go are the state machine, signals.go the
// response to loss and ECN, cwnd.go and pacer.go the control parameters,
// and bbr.go wires them to the congestion.Controller calls.
package bbr
