package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/nats-io/nats.go"

	"github.com/lastmile-edge/lastmile/modules/httpcache"
)

// Headers of a purge message besides Nats-Msg-Id.
const (
	headerOrigin    = "Lastmile-Origin-Node"
	headerPublished = "Lastmile-Published" // unix nanoseconds
)

// maxAckSize bounds an acknowledgement this node reads.
const maxAckSize = 4096

// Publish stores req in the stream and waits for req.WaitFor nodes'
// acknowledgements. When NATS is unreachable the purge is refused (503),
// not queued: a queue in this node's memory dies with it while the caller
// believes the purge will happen; refused, the caller retries here or at
// another node.
func (a *App) Publish(ctx context.Context, req httpcache.PurgeRequest) (*httpcache.FanoutResult, error) {
	if !a.nc.IsConnected() {
		metrics.published.WithLabelValues("error").Inc()
		return nil, caddy.APIError{HTTPStatus: http.StatusServiceUnavailable,
			Err: fmt.Errorf("fleet: not connected to NATS (%s); the purge was refused, not queued: retry when NATS is back or at another node", a.nc.Status())}
	}
	timeout := time.Duration(req.Timeout)
	if timeout == 0 {
		timeout = time.Duration(a.Timeout)
	}
	id := req.ID
	if id == "" {
		id = newID()
	}
	waitFor := req.WaitFor
	body, err := json.Marshal(httpcache.PurgeRequest{Cache: req.Cache, URLs: req.URLs, Prefixes: req.Prefixes, Tags: req.Tags, All: req.All, Soft: req.Soft})
	if err != nil {
		return nil, err
	}
	var acks chan *nats.Msg
	if waitFor > 0 {
		// Subscribed before publishing: on one connection the server
		// registers the subscription before it sees the purge.
		acks = make(chan *nats.Msg, min(waitFor, 256))
		sub, err := a.nc.ChanSubscribe(a.AckSubject+"."+id, acks)
		if err != nil {
			return nil, unavailable(err)
		}
		defer sub.Unsubscribe()
	}
	msg := nats.NewMsg(a.Subject)
	msg.Header.Set(nats.MsgIdHdr, id)
	msg.Header.Set(headerOrigin, a.Node)
	msg.Header.Set(headerPublished, strconv.FormatInt(time.Now().UnixNano(), 10))
	msg.Data = body
	pubCtx, cancel := context.WithTimeout(ctx, time.Duration(a.Timeout))
	defer cancel()
	ack, err := a.js.PublishMsg(pubCtx, msg)
	if err != nil {
		metrics.published.WithLabelValues("error").Inc()
		return nil, unavailable(err)
	}
	res := &httpcache.FanoutResult{ID: id, Stream: ack.Stream, Seq: ack.Sequence, Duplicate: ack.Duplicate, WaitFor: waitFor, Complete: true}
	if ack.Duplicate {
		// Nodes applied it when it was first stored; none will ack again.
		metrics.published.WithLabelValues("duplicate").Inc()
		return res, nil
	}
	metrics.published.WithLabelValues("ok").Inc()
	if waitFor == 0 {
		return res, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	seen := make(map[string]bool)
	for len(res.Acks) < waitFor {
		select {
		case m := <-acks:
			var na httpcache.NodeAck
			if len(m.Data) > maxAckSize || json.Unmarshal(m.Data, &na) != nil || na.Node == "" || seen[na.Node] {
				continue
			}
			seen[na.Node] = true
			res.Acks = append(res.Acks, na)
		case <-timer.C:
			res.Complete = false
			return res, nil
		case <-ctx.Done():
			res.Complete = false
			return res, nil
		}
	}
	return res, nil
}

func unavailable(err error) error {
	return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable,
		Err: fmt.Errorf("fleet: the purge could not be stored in JetStream (%v); it was refused, not queued: retry", err)}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
