// Package bbr is lastmile's BBRv3 congestion controller for QUIC, written
// from the IETF specification draft-ietf-ccwg-bbr ("BBR Congestion
// Control", the congestion control working group's draft of BBR version
// 3). Section numbers in comments (§) are those of the working group's
// editor's copy after draft -04
// (github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr, commit 4ce5e87); names
// follow the draft's (BBR.max_bw is maxBw, C.inflight is inflight).
//
// Where QUIC, lastmile's controller interface or the links this edge
// serves differ from the draft's assumptions, the comments say so:
//   - the per-packet delivery state lives here rather than in the
//     transport, matched by packet number and send time (rate.go);
//   - the ECN response, which the draft leaves open, follows Linux's BBRv3
//     (signals.go);
//   - a single probe timeout keeps the window (RFC 9002 §6.2: a PTO is not
//     a loss signal); only a second in a row is the draft's RTO (bbr.go);
//   - random loss: the draft's 2% loss threshold and its response to any
//     loss outside a probe would hold a radio link with a few percent of
//     random loss far below its rate, so the threshold allows for the loss
//     the path shows without a queue (lossThreshold: the draft's 2% on a
//     path with none), and outside probes and in Startup a lossy round
//     counts as congestion only when a queue stood in it or its loss rate
//     crossed the threshold (congestiveLoss, checkStartupHighLoss);
//   - Startup's loss exit wants a full round trip in recovery, which TCP's
//     recovery outlasts while losses go on but QUIC's (RFC 9002 §7.3.2)
//     never does: here it is two loss rounds in a row that meet the exit's
//     criteria (checkStartupHighLoss);
//   - a flight sent from idle (a kept connection's page) is measured from
//     its first ACK rather than from its start, and one that kept its ACKs
//     coming for 1.5 min_rtt filled the pipe: its round counts toward the
//     bandwidth plateau although app-limited, so Startup ends on a path
//     whose pages are larger than the BDP instead of overfilling its queue
//     with every page (rate.go's rebase, checkFullBwReached);
//   - the RTT spread of rounds before the pipe is first full, or in Drain,
//     is Startup's own queue draining, not jitter (jitter.go);
//   - spurious-loss undo (§5.5.11) also resumes Startup with
//     full_bw_reached as it was, since here a loss can end Startup
//     (spurious.go);
//   - Careful Resume (RFC 9959, resume.go) judges a resuming connection's
//     losses by the same model where the path's saved loss rate shows
//     random loss, rather than taking any loss as congestion.
//
// One file per concern: rate.go samples delivery rates, filter.go holds
// the windowed filters, round.go counts round trips, startup.go,
// probe_bw.go and probe_rtt.go are the state machine, signals.go the
// response to loss and ECN, spurious.go its undo, cwnd.go and pacer.go
// the control parameters, and bbr.go wires them to the
// congestion.Controller calls.
package bbr
