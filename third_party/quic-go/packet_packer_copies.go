package quic

// lastmile patch: packing the copies of a small final flight
// (internal/ackhandler/tail_copies.go says why).

import (
	"github.com/quic-go/quic-go/internal/ackhandler"
	"github.com/quic-go/quic-go/internal/protocol"
)

// PackStreamFrameCopies packs copies of STREAM frames into one 1-RTT
// packet. Frames that no longer fit (the packet number may have grown a
// byte since the original was packed) are left out; with none left it
// returns a nil buffer.
func (p *packetPacker) PackStreamFrameCopies(frames []ackhandler.StreamFrame, maxPacketSize protocol.ByteCount, v protocol.Version) (shortHeaderPacket, *packetBuffer, error) {
	s, err := p.cryptoSetup.Get1RTTSealer()
	if err != nil {
		return shortHeaderPacket{}, nil, err
	}
	connID := p.getDestConnID()
	pn, pnLen := p.pnManager.PeekPacketNumber(protocol.Encryption1RTT)
	for len(frames) > 0 {
		// Only the last STREAM frame of a packet may omit its length.
		for i, f := range frames {
			f.Frame.DataLenPresent = i < len(frames)-1
		}
		pl := payload{streamFrames: frames}
		for _, f := range frames {
			pl.length += f.Frame.Length(v)
		}
		if p.shortHeaderPacketLength(connID, pnLen, pl)+protocol.ByteCount(s.Overhead()) <= maxPacketSize {
			buffer := getPacketBuffer()
			packet, err := p.appendShortHeaderPacket(buffer, connID, pn, pnLen, s.KeyPhase(), pl, 0, maxPacketSize, s, false, v)
			return packet, buffer, err
		}
		frames = frames[:len(frames)-1]
	}
	return shortHeaderPacket{}, nil, nil
}
