package wtproxy

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/dunglas/httpsfv"
)

// Application protocol negotiation (draft-ietf-webtrans-http3, section
// 3.3): the browser offers WT-Available-Protocols, a structured-field
// list of strings in its order of preference, and the server answers the
// one it chose as WT-Protocol. The proxy relays the offer, cut to the
// protocols it is configured with, and the upstream's choice back.
//
// webtransport-go v0.13.0's client has one list of protocols per
// Transport, and so per pooled connection: it checks the upstream's
// WT-Protocol against that list, not against the header a session was
// dialed with, and it offers the whole list when a request has no offer
// of its own. Hence the configured list, a connection pool of its own for
// sessions with an offer (a browser that offers nothing must not be
// offered for), and the check against this browser's own offer.

const (
	availableProtocolsHeader = "WT-Available-Protocols"
	protocolHeader           = "WT-Protocol"
)

// maxProtocols and maxProtocolLen bound the configured list.
const (
	maxProtocols   = 32
	maxProtocolLen = 255
)

// offeredProtocols is the part of r's offer the proxy relays: the
// protocols in relayed, in the browser's order, once each. An offer that
// is not a list of strings offers nothing, as webtransport-go's server
// treats it.
func offeredProtocols(r *http.Request, relayed []string) []string {
	values := r.Header.Values(availableProtocolsHeader)
	if len(relayed) == 0 || len(values) == 0 {
		return nil
	}
	list, err := httpsfv.UnmarshalList(values)
	if err != nil {
		return nil
	}
	var offer []string
	for _, member := range list {
		item, ok := member.(httpsfv.Item)
		if !ok {
			return nil
		}
		name, ok := item.Value.(string)
		if !ok {
			return nil
		}
		if slices.Contains(relayed, name) && !slices.Contains(offer, name) {
			offer = append(offer, name)
		}
	}
	return offer
}

// poolFor is the connection pool for sessions offering offer.
func (p *Proxy) poolFor(offer []string) *connPool {
	if len(offer) > 0 {
		return p.negotiating
	}
	return p.pool
}

// setOffer puts offer in the upstream CONNECT's header, replacing any
// offer the header had.
func setOffer(hdr http.Header, offer []string) {
	hdr.Del(availableProtocolsHeader)
	if len(offer) == 0 {
		return
	}
	list := make(httpsfv.List, len(offer))
	for i, name := range offer {
		list[i] = httpsfv.NewItem(name)
	}
	// The names passed validProtocol: marshalling them cannot fail.
	v, _ := httpsfv.Marshal(list)
	hdr.Set(availableProtocolsHeader, v)
}

// validProtocol checks a configured protocol name: a structured-field
// string of printable ASCII.
func validProtocol(name string) error {
	if name == "" || len(name) > maxProtocolLen {
		return fmt.Errorf("want 1 to %d characters", maxProtocolLen)
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c > 0x7e {
			return fmt.Errorf("want printable ASCII")
		}
	}
	return nil
}
